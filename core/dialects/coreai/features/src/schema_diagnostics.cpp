#include "opscope/features/schema_diagnostics.h"

#include "opscope/schema/check.h"
#include "text.h"

namespace opscope::features {

std::vector<Diagnostic> schema_diagnostics(const config::ConfigDocument& document,
                                           const schema::Schema& schema,
                                           std::string_view expected_root) {
  std::vector<Diagnostic> out;
  for (schema::Problem& p : schema::check(document, schema, expected_root)) {
    Diagnostic d;
    d.range = p.range;
    d.severity = p.is_error() ? Severity::Error : Severity::Warning;
    d.code = schema::code(p.kind);
    d.message = std::move(p.message);
    bool key = p.kind == schema::Problem::Kind::UnknownKey ||
               p.kind == schema::Problem::Kind::IgnoredKey || p.kind == schema::Problem::Kind::Root;
    bool python = document.format == config::Format::Python;
    for (const std::string& s : p.suggestions) // a Python value was a string literal
      d.fixes.push_back({"Replace with `" + s + "`",
                         {p.range, key      ? detail::render_key(s, document.format, 0)
                                   : python ? detail::render_key(s, document.format, '"')
                                            : s}});
    out.push_back(std::move(d));
  }
  return out;
}

} // namespace opscope::features
