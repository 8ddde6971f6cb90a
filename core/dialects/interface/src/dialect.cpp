#include "opscope/dialects/dialect.h"

#include <filesystem>
#include <unistd.h>

namespace opscope::dialects {
namespace {

// A dialect that keeps nothing between revisions: each is read whole.
class StatelessSession final : public DialectSession {
public:
  explicit StatelessSession(const Dialect& dialect) : dialect_(dialect) {}
  std::shared_ptr<const DialectDocument> read(const Revision& revision, ReadHost&) override {
    return dialect_.read(revision.path, revision.text);
  }

private:
  const Dialect& dialect_;
};

} // namespace

std::unique_ptr<DialectSession> Dialect::open() const {
  return std::make_unique<StatelessSession>(*this);
}

std::string SchemaDump::temporary() const {
  std::filesystem::path final_path(path);
  return (final_path.parent_path() /
          ("." + final_path.filename().string() + "." + std::to_string(::getpid()) + ".partial"))
      .string();
}

std::vector<Diagnostic> DialectDocument::diagnostics(const Context& context) const {
  std::vector<Diagnostic> out;
  if (!context.index)
    return out;
  for (Finding& finding : diagnose(*context.index)) {
    Diagnostic d{
        finding.range, finding.severity, std::move(finding.code), std::move(finding.message), {}};
    for (Replacement& fix : finding.fixes)
      d.fixes.push_back({std::move(fix.title), {fix.range, std::move(fix.new_text)}, true});
    out.push_back(std::move(d));
  }
  return out;
}

std::optional<Hover> DialectDocument::hover_at(const Context& context,
                                               config::Position cursor) const {
  if (!context.index)
    return std::nullopt;
  std::optional<HoverText> found = hover(*context.index, cursor);
  if (!found)
    return std::nullopt;
  return Hover{std::move(found->markdown), found->range};
}

CompletionList DialectDocument::completion(const Context& context, config::Position cursor,
                                           const CompletionOptions& options) const {
  CompletionList out;
  if (empty())
    return out;
  if (!context.index) {
    out.is_incomplete = true; // names come once the model has loaded
    return out;
  }
  std::vector<Suggestion> found = complete(*context.index, cursor);
  out.is_incomplete = found.size() > options.max_items;
  if (found.size() > options.max_items)
    found.resize(options.max_items);
  out.items.reserve(found.size());
  for (Suggestion& s : found) {
    CompletionItem item;
    item.kind = CompletionItem::Kind::Module;
    item.filter_text = s.label;
    item.edit = {s.replace, s.label};
    item.label = std::move(s.label);
    item.detail = std::move(s.detail);
    item.sort_text = std::move(s.sort_text);
    out.items.push_back(std::move(item));
  }
  return out;
}

} // namespace opscope::dialects
