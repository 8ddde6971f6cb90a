// What a pattern key matches in the index, in its scope. Pattern semantics
// (RE2 full match, Python-only constructs) come from core/index's query API;
// this file adds the config's scopes and the error column.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/features/model.h"
#include "opscope/index/index.h"
#include "opscope/index/query.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opscope::features::detail {

struct CompiledPattern {
  index::PatternStatus::Kind status = index::PatternStatus::Kind::Ok; // the Query's
  std::shared_ptr<const index::Query> re;                             // set when usable
  std::string error;            // RE2's reason, or which Python-only construct was used
  std::size_t error_offset = 0; // offset in the pattern text the error points at
};

// With `engine`, the pattern comes from the engine's cache (compiled once per loaded model).
CompiledPattern compile_pattern(const std::string& pattern,
                                const index::QueryEngine* engine = nullptr);

// Escapes `name` so that, as a full-match regex, it matches exactly `name`.
std::string escape_regex(const std::string& name);

struct Matches {
  std::vector<int> modules; // indices into Index::modules
  std::vector<int> ops;     // indices into Index::ops (Call ops only), graph order
  bool evaluated = true;    // false when the pattern could not be evaluated
};

// Call ops inside `scope` (every call op for a global scope), in graph order. Ops inside
// a module are the engine's: those in the module's subtree, as coreai-opt selects them.
std::vector<int> ops_in_scope(const index::QueryEngine& engine, const config::Scope& scope);

// Whether match_key lists the matched modules always, or only when no op matched (all a
// caller asking "does it match anything" needs; listing costs a test of every module).
enum class ModuleList { Always, IfNoOps };

// What `key` selects, through the model's engine. For module tables: the modules and
// every call op inside them; for op tables: the call ops in the key's scope. Op types
// are compared as `compressor` registers them (eager Quantizer files `x.add_()` under
// `add`). Ops are listed whatever the compressor (see `compressible`).
// The model's query engine, or one built for this call when the caller has none, and the
// ops of each scope asked for during the call (the nested keys of one config entry share it).
class ModelQueries {
public:
  explicit ModelQueries(const Model& model);
  ModelQueries(const ModelQueries&) = delete; // would point into the other's engine
  ModelQueries& operator=(const ModelQueries&) = delete;
  const index::QueryEngine& operator*() const { return *engine_; }
  // ops_in_scope(engine, scope), computed once per scope for this object's lifetime.
  const std::vector<int>& scope_ops(const config::Scope& scope) const;

private:
  std::optional<index::QueryEngine> owned_;
  const index::QueryEngine* engine_;
  mutable std::map<std::pair<int, std::string>, std::vector<int>> scope_ops_;
};

Matches match_key(const ModelQueries& queries, const config::PatternKey& key,
                  index::Compressor compressor, ModuleList list_modules = ModuleList::Always);

// Which compressors count: ops filtered to those `compressor` registers.
std::vector<int> compressible(const index::Index& index, const std::vector<int>& ops,
                              index::Compressor compressor);

} // namespace opscope::features::detail
