// What llm-compressor / compressed-tensors do with one modifier on one model, by their own
// rules (llmcompressor 0.14 QuantizationMixin.resolve_quantization_config and
// initialize_quantization; compressed-tensors 0.19 apply_quantization_config,
// match_named_modules, match_targets, is_narrow_match; group_size_validation.py; SmoothQuant's
// and AWQ's mapping resolution through match_modules_set), over the model's named_modules().
#pragma once

#include "opscope/dialects/llmcompressor/config.h"
#include "opscope/dialects/llmcompressor/schemes.h"
#include "opscope/index/index.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::dialects::llmcompressor {

// A config group after resolve_quantization_config: `scheme: W4A16` becomes group_0, a
// `{preset: targets}` map one group per preset, an unset config the default (targets, no args).
struct Group {
  std::string name;
  std::optional<std::string> preset; // the preset it expands
  Scheme scheme;
  std::optional<std::string> format; // the compression format the group writes, if any
};

// One target string as written, and the group it belongs to.
struct TargetEntry {
  Written text;
  int group = 0;
};

// A module that gets a quantization scheme.
struct Applied {
  int module = -1;        // index into index::Index::named_modules()
  int group = -1;         // the group whose scheme applies (match_targets' most specific target)
  int target = -1;        // the deciding entry of Resolution::targets
  bool attention = false; // a cached attention module (narrowly matched), not a Linear
};

// A module a target matches that an ignore entry leaves out.
struct Ignored {
  int module = -1;
  int ignore_entry = -1; // index into Modifier::ignore: the first entry that matches
  int target = -1;       // the first entry of Resolution::targets that matched it
};

// One mappings entry resolved: the sets of modules (set -> [smooth, balance...] -> modules).
struct ResolvedMapping {
  std::vector<std::vector<std::vector<int>>> sets;
  bool found = false; // anything matched
  std::optional<std::string> error;
};

struct Resolution {
  std::vector<Group> groups;
  // Every target written (groups in order; `targets` when a scheme or nothing else sets them;
  // the default `Linear` when none is written, with an empty range).
  std::vector<TargetEntry> targets;
  std::vector<Applied> applied; // in named_modules() order
  std::vector<Ignored> ignored; // in named_modules() order
  // Targeted and not ignored, but neither Linear, Embedding nor a narrowly matched attention
  // module: apply_quantization_config leaves them as they are.
  std::vector<int> untouched;
  // Per target / ignore entry: the modules it matches by name or class (hover, no-match).
  std::vector<std::vector<int>> target_matches, ignore_matches;
  std::vector<ResolvedMapping> mappings; // per Modifier::mappings entry
  // Set when llm-compressor refuses the modifier (pydantic, a bad regex reached, a group size
  // that does not divide a targeted layer's columns, a mapping that does not pair up), with
  // its reason and the written value it is about (else the modifier's anchor).
  std::optional<std::string> error;
  std::optional<config::Range> error_range;
  std::string error_code; // "scheme", "scheme-and-groups", "args", "regex", "group-size", "mapping"
};

namespace detail {
class EntryMatches;
}
// `memo`, kept per model by the dialect, holds what entry texts matched on `model` in earlier
// checks (null: everything is matched here).
Resolution resolve(const Modifier& modifier, const index::Index& model,
                   const detail::EntryMatches* memo = nullptr);

// What happens to one module: its scheme, or the ignore entry that leaves it out.
struct ModuleVerdict {
  const Applied* applied = nullptr;
  const Ignored* ignored = nullptr;
};
ModuleVerdict verdict(const Resolution& resolution, int module);

} // namespace opscope::dialects::llmcompressor
