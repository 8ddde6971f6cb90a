// The code actions (kind refactor.rewrite) that apply a proposed config (Proposals): one edit,
// the changed lines, annotated so the client asks before applying it (VS Code shows its
// refactor preview, a diff); a plain edit for a client without change annotations.
#pragma once

#include "position_mapper.h"
#include "proposals.h"

#include "opscope/protocol/lsp_types.h"

#include <string>

namespace opscope::lsp {

inline constexpr const char* kProposeKind = "refactor.rewrite";

// Whether a codeAction request's context.only (absent: every kind) lets a proposal through.
bool wants_proposals(const protocol::Json& context);

// The action for `offer` on `text` (the document at `version`, the revision proposed for).
protocol::Json propose_action(const Proposals::Offer& offer, const std::string& uri, int version,
                              const std::string& text, const PositionMapper& positions,
                              bool confirmed_edits);

} // namespace opscope::lsp
