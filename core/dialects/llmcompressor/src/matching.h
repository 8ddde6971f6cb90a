// compressed-tensors' name rules, each written once (compressed_tensors/utils/match.py of
// compressed-tensors 0.19.0): match_name, _match_class, match_targets' order, is_narrow_match,
// match_modules_set, and initialize.py's attention test. Python's `re` patterns run with RE2:
// a pattern RE2 cannot compile (lookaround, backreference) is reported, never guessed.
#pragma once

#include "opscope/index/index.h"

#include <re2/re2.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace opscope::dialects::llmcompressor::detail {

class EntryMatches;

// One target / ignore string: an exact name, `re:` + a pattern (re.match: anchored at the
// start only), and always a class name too.
class Target {
public:
  explicit Target(std::string text);
  const std::string& text() const { return text_; }
  bool is_regex() const { return raw_ != nullptr; }
  // The pattern does not compile; `error()` says why, `error_offset()` where (bytes into the
  // pattern after `re:`).
  bool bad() const { return raw_ && !raw_->ok(); }
  std::string error() const;
  std::size_t error_offset() const;
  // The message for a bad pattern: "bad regular expression `re:(`: missing ): ( (at position 0
  // of the pattern)"; the position counts as Python's re.error does, after `re:`.
  std::string problem() const;
  // match_name: `re:` patterns by re.match, others by equality (false for a bad pattern).
  bool matches_name(std::string_view name) const;

  // What the target matches on `model`, module by module (named_modules() order), found once
  // here or taken from `memo` where another check already found it for this text.
  void bind(const index::Index& model, const EntryMatches* memo);
  // After bind(): the module's name matches (match_name), its class does (_match_class), either.
  bool name_matches(std::size_t module) const { return (*bound_)[module] & kByName; }
  bool class_matches(std::size_t module) const { return (*bound_)[module] & kByClass; }
  bool matches(std::size_t module) const { return (*bound_)[module] != 0; }

  static constexpr std::uint8_t kByName = 1, kByClass = 2;
  using ModuleBits = std::vector<std::uint8_t>;

private:
  std::string text_;
  std::unique_ptr<RE2> raw_, regex_; // the pattern as written; anchored for matching
  std::shared_ptr<const ModuleBits> bound_;
};

// What each entry text matches on one model (Target::bind), kept by the dialect per model: a
// re-check after a keystroke matches only the entries the keystroke changed, where matching a
// 100-entry list against a 70B model's modules (RE2 for each `re:` entry and module) was most of
// the check. Bounded: past kMaxBytes it starts over. Thread-safe (the check and hovers share it).
class EntryMatches {
public:
  std::shared_ptr<const Target::ModuleBits> find(const std::string& text) const;
  void keep(const std::string& text, std::shared_ptr<const Target::ModuleBits> bits) const;

  static constexpr std::size_t kMaxBytes = 32u << 20;

private:
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::string, std::shared_ptr<const Target::ModuleBits>> kept_;
  mutable std::size_t bytes_ = 0;
};

// _match_class: the short name of the module's class or of any nn.Module class in its MRO
// (torch.nn.Module itself included, so `Module` matches every module; `LinearBase` answers to
// `Linear`).
bool matches_class(const index::ModuleObject& module, std::string_view target);
// The class names `_match_class` compares with (short names), for completion and hover.
std::vector<std::string> class_names(const index::ModuleObject& module);

// match_targets' order: exact strings, then `re:` ones (any string containing "re:"), each
// sorted; a module's name matches come before its class matches.
bool target_order(const std::string& a, const std::string& b);

// initialize.py _is_attention_module: "attention" in the class name (any case) and a k_proj,
// v_proj, qkv_proj or kv_b_proj attribute. (is_cached_attention_module also asks forward() for
// past_key_value(s); the index does not record signatures: assumed.)
bool is_attention(const index::Index& model, int module);

// is_narrow_match of one target: matches the module, not its parent, not any descendant.
// `matches(i)` tells whether the target matches named_modules()[i].
template <class Matches>
bool narrow_match(const index::Index& model, int module, const Matches& matches) {
  const auto& modules = model.named_modules();
  const std::string& name = modules[static_cast<std::size_t>(module)].name;
  if (!matches(module))
    return false;
  auto dot = name.rfind('.');
  // name.rsplit(".", 1)[0]: a name without a dot is its own parent.
  int parent = dot == std::string::npos ? module : model.find_module_object(name.substr(0, dot));
  if (parent >= 0 && matches(parent))
    return false;
  std::string prefix = name + ".";
  for (std::size_t i = 0; i < modules.size(); ++i)
    if (modules[i].name.starts_with(prefix) && matches(static_cast<int>(i)))
      return false;
  return true;
}

// match_modules_set: modules grouped by parent context, one list per target in each set. An
// error (rematch, incomplete final set) is returned as llm-compressor words it.
struct ModuleSets {
  std::vector<std::vector<std::vector<int>>> sets; // set -> target -> modules
  std::optional<std::string> error;
  bool found = false; // some target matched something
};
ModuleSets match_modules_set(const index::Index& model, const std::vector<Target>& targets);

// get_lowest_common_ancestor_name of two names (the second may be absent).
std::string common_ancestor(const std::string& a, const std::optional<std::string>& b);

} // namespace opscope::dialects::llmcompressor::detail
