#include "propose_actions.h"

#include "opscope/propose/config_edit.h"

#include <cmath>
#include <cstdio>

namespace opscope::lsp {
namespace {

constexpr const char* kAnnotation = "opscope.propose";

std::string sqnr(const propose::Proposal& p) {
  if (p.error == 0)
    return "lossless";
  char text[48];
  std::snprintf(text, sizeof text, "SQNR %.2f dB", 10 * std::log10(p.norm / p.error));
  return text;
}

std::string two_places(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

// What the proposal reaches, its mix and the best uniform choice: the preview's description.
std::string description(const propose::Proposal& p) {
  std::string mix;
  for (const auto& [label, count] : p.mix)
    mix += (mix.empty() ? "" : ", ") + std::to_string(count) + " " + label;
  std::string out = propose::bits_per_weight_text(p.bits, p.total_weights) + " bits per weight, " +
                    propose::megabytes_text(p.bits) + " (budget " +
                    propose::bits_per_weight_text(p.budget, p.total_weights) + "); weight error " +
                    propose::error_text(p.error, p.norm) + "; " + mix;
  if (p.best_uniform)
    out += "; best uniform choice that fits: " + p.best_uniform->label + ", weight error " +
           propose::error_text(p.best_uniform->error, p.norm);
  return out;
}

} // namespace

bool wants_proposals(const protocol::Json& context) {
  if (!context.is_object() || !context.contains("only") || !context["only"].is_array())
    return true;
  const std::string kind = kProposeKind;
  for (const protocol::Json& only : context["only"])
    if (only.is_string()) {
      const std::string& prefix = only.get_ref<const std::string&>();
      // A kind covers its sub-kinds: "refactor" asks for refactor.rewrite.
      if (kind == prefix || kind.rfind(prefix + ".", 0) == 0)
        return true;
    }
  return false;
}

protocol::Json propose_action(const Proposals::Offer& offer, const std::string& uri, int version,
                              const std::string& text, const PositionMapper& positions,
                              bool confirmed_edits) {
  const propose::Proposal& p = offer.proposal;
  const propose::LineChange change = propose::changed_lines(text, p.text);
  protocol::Json edit = {{"range", positions.to_lsp(change.replaced)}, {"newText", change.text}};
  const std::string title =
      "opscope: propose a config for " + offer.budget + " (" +
      two_places(static_cast<double>(p.bits) / static_cast<double>(p.total_weights)) +
      " bits per weight, " + propose::megabytes_text(p.bits) + ", weight " + sqnr(p) + ")";
  protocol::Json workspace_edit;
  if (confirmed_edits) {
    edit["annotationId"] = kAnnotation;
    workspace_edit = {
        {"documentChanges",
         {{{"textDocument", {{"uri", uri}, {"version", version}}}, {"edits", {edit}}}}},
        {"changeAnnotations",
         {{kAnnotation,
           {{"label", "opscope propose: " + offer.budget},
            {"needsConfirmation", true},
            {"description", description(p)}}}}}};
  } else {
    workspace_edit = {{"changes", {{uri, {edit}}}}};
  }
  return {{"title", title}, {"kind", kProposeKind}, {"edit", workspace_edit}};
}

} // namespace opscope::lsp
