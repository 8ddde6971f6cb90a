// The code actions (kind refactor.rewrite) that apply a dialect's rewrite of the whole config
// (Rewrites; coreai-opt: a proposed config): one edit, the changed lines, annotated so the
// client asks before applying it (VS Code shows its refactor preview, a diff); a plain edit for
// a client without change annotations.
#pragma once

#include "position_mapper.h"

#include "opscope/dialects/dialect.h"
#include "opscope/protocol/lsp_types.h"

#include <string>

namespace opscope::lsp {

inline constexpr const char* kRewriteKind = "refactor.rewrite";

// Whether a codeAction request's context.only (absent: every kind) lets a rewrite through.
bool wants_rewrites(const protocol::Json& context);

// The action for `rewrite` of the document at `version` (the revision it was computed for).
protocol::Json rewrite_action(const dialects::Rewrite& rewrite, const std::string& uri, int version,
                              const PositionMapper& positions, bool confirmed_edits);

} // namespace opscope::lsp
