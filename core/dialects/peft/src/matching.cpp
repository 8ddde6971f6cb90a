#include "matching.h"
#include "opscope/dialects/python_regex.h"

#include <algorithm>

namespace opscope::dialects::peft::detail {

// re.match(P) is P anchored at the start as a whole: `^(?:P)`, `$` inside P being the end
// (names hold no newline, so Python's `$` before a final newline never differs).
Pattern::Pattern(const std::string& text, Anchor anchor)
    : re_(std::make_unique<RE2>(anchor == Anchor::Full ? text : "^(?:" + text + ")",
                                python_pattern_options())),
      anchor_(anchor) {}

bool Pattern::matches(std::string_view name) const {
  if (!ok())
    return false;
  return anchor_ == Anchor::Full ? RE2::FullMatch(name, *re_) : RE2::PartialMatch(name, *re_);
}

NameList::NameList(const std::vector<std::string>& names) : names_(names) {
  for (const std::string& n : names_)
    set_.insert(n);
}

bool NameList::matches(std::string_view key) const {
  if (set_.count(key))
    return true;
  for (std::size_t dot = key.find('.'); dot != std::string_view::npos; dot = key.find('.', dot + 1))
    if (set_.count(key.substr(dot + 1)))
      return true;
  return false;
}

std::vector<int> NameList::entries_matching(std::string_view key) const {
  std::vector<int> out;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    const std::string& n = names_[i];
    if (key == n ||
        (key.size() > n.size() && key.ends_with(n) && key[key.size() - n.size() - 1] == '.'))
      out.push_back(static_cast<int>(i));
  }
  return out;
}

LayerIndex::LayerIndex(const std::vector<std::string>& patterns) {
  if (patterns.empty())
    res_.push_back(
        std::make_unique<RE2>(R"(^(?:.*?\.[^.]*\.(?P<idx>\d+)\.))", python_pattern_options()));
  for (const std::string& p : patterns)
    res_.push_back(std::make_unique<RE2>("^(?:(?:^|.*?\\.)" + p + "\\.(?P<idx>\\d+)\\.)",
                                         python_pattern_options()));
}

std::optional<long long> LayerIndex::of(std::string_view key) const {
  for (const auto& re : res_) { // the first pattern that matches decides
    if (!re->ok())
      continue;
    auto named = re->NamedCapturingGroups().find("idx");
    if (named == re->NamedCapturingGroups().end())
      continue;
    std::vector<re2::StringPiece> groups(static_cast<std::size_t>(named->second) + 1);
    // re.match: anchored at the start; RE2's leftmost-first semantics keep `.*?` lazy.
    if (!re->Match(key, 0, key.size(), RE2::UNANCHORED, groups.data(),
                   static_cast<int>(groups.size())))
      continue;
    std::string_view idx(groups.back().data(), groups.back().size());
    if (idx.empty() || idx.size() > 15)
      return std::nullopt;
    return std::stoll(std::string(idx));
  }
  return std::nullopt;
}

Pattern pattern_key(std::string_view key) {
  return Pattern("(.*\\.)?(" + std::string(key) + ")$", Pattern::Anchor::Start);
}

Pattern saved_exclusion(std::string_view m) {
  return Pattern("(^|.*\\.)" + std::string(m) + "($|\\..*)", Pattern::Anchor::Start);
}

} // namespace opscope::dialects::peft::detail
