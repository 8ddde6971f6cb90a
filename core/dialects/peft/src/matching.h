// PEFT's name rules, each written once (peft 0.21.2): target_modules, exclude_modules,
// layers_to_transform + layers_pattern, rank_pattern / alpha_pattern keys, modules_to_save.
// Python's `re` patterns are run with RE2; a pattern RE2 cannot compile (lookaround,
// backreference) is reported, never guessed.
#pragma once

#include <re2/re2.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace opscope::dialects::peft::detail {

// A compiled Python pattern; `ok()` false when RE2 cannot compile it (`error` says why).
class Pattern {
public:
  // re.fullmatch (Full) or re.match (Start: anchored at the start only) of `text`, the
  // pattern as PEFT builds it (its f-string already applied).
  enum class Anchor { Full, Start };
  explicit Pattern(const std::string& text, Anchor anchor = Anchor::Full);
  bool ok() const { return re_ && re_->ok(); }
  std::string error() const { return re_ ? re_->error() : std::string(); }
  bool matches(std::string_view name) const;

private:
  std::unique_ptr<RE2> re_;
  Anchor anchor_ = Anchor::Full;
};

// A list of names as PEFT's `key in names or key.endswith("." + name)` reads it.
class NameList {
public:
  explicit NameList(const std::vector<std::string>& names);
  bool matches(std::string_view key) const;
  bool contains(std::string_view key) const { return set_.count(key) != 0; }
  // The entries `key` matches (exactly or as a dot-suffix), for per-entry bookkeeping.
  std::vector<int> entries_matching(std::string_view key) const;

private:
  std::vector<std::string> names_;
  std::unordered_set<std::string_view> set_;
};

// check_target_module_exists' layer index of a name: the first numbered segment after a layers
// pattern (any segment when there is no pattern); nullopt when there is none. The patterns are
// compiled once.
class LayerIndex {
public:
  explicit LayerIndex(const std::vector<std::string>& patterns);
  std::optional<long long> of(std::string_view key) const;

private:
  std::vector<std::unique_ptr<RE2>> res_;
};

// get_pattern_key: `re.match(rf"(.*\.)?({key})$", name)`.
Pattern pattern_key(std::string_view key);
// modules_to_save excluding targets: `re.match(rf"(^|.*\.){m}($|\..*)", name)`.
Pattern saved_exclusion(std::string_view m);

} // namespace opscope::dialects::peft::detail
