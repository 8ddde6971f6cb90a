#include "rewrite_actions.h"

namespace opscope::lsp {
namespace {

constexpr const char* kAnnotation = "opscope.rewrite";

} // namespace

bool wants_rewrites(const protocol::Json& context) {
  if (!context.is_object() || !context.contains("only") || !context["only"].is_array())
    return true;
  const std::string kind = kRewriteKind;
  for (const protocol::Json& only : context["only"])
    if (only.is_string()) {
      const std::string& prefix = only.get_ref<const std::string&>();
      // A kind covers its sub-kinds: "refactor" asks for refactor.rewrite.
      if (kind == prefix || kind.rfind(prefix + ".", 0) == 0)
        return true;
    }
  return false;
}

protocol::Json rewrite_action(const dialects::Rewrite& rewrite, const std::string& uri, int version,
                              const PositionMapper& positions, bool confirmed_edits) {
  protocol::Json edit = {{"range", positions.to_lsp(rewrite.replaced)}, {"newText", rewrite.text}};
  protocol::Json workspace_edit;
  if (confirmed_edits) {
    edit["annotationId"] = kAnnotation;
    workspace_edit = {
        {"documentChanges",
         {{{"textDocument", {{"uri", uri}, {"version", version}}}, {"edits", {edit}}}}},
        {"changeAnnotations",
         {{kAnnotation,
           {{"label", rewrite.label},
            {"needsConfirmation", true},
            {"description", rewrite.description}}}}}};
  } else {
    workspace_edit = {{"changes", {{uri, {edit}}}}};
  }
  return {{"title", rewrite.title}, {"kind", kRewriteKind}, {"edit", workspace_edit}};
}

} // namespace opscope::lsp
