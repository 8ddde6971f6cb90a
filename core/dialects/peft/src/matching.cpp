#include "matching.h"

#include <algorithm>

namespace opscope::dialects::peft::detail {
namespace {

RE2::Options options() {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_max_mem(64 << 20); // a hostile pattern fails to compile instead of growing
  return o;
}

} // namespace

// re.match(P) is P anchored at the start as a whole: `^(?:P)`, `$` inside P being the end
// (names hold no newline, so Python's `$` before a final newline never differs).
Pattern::Pattern(const std::string& text, Anchor anchor)
    : re_(std::make_unique<RE2>(anchor == Anchor::Full ? text : "^(?:" + text + ")", options())),
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

std::optional<long long> layer_index(std::string_view key,
                                     const std::vector<std::string>& patterns) {
  auto first = [&](const std::string& text) -> std::optional<std::string> {
    RE2 re("^(?:" + text + ")", options());
    if (!re.ok())
      return std::nullopt;
    auto named = re.NamedCapturingGroups().find("idx");
    if (named == re.NamedCapturingGroups().end())
      return std::nullopt;
    std::vector<re2::StringPiece> groups(static_cast<std::size_t>(named->second) + 1);
    // re.match: anchored at the start; RE2's leftmost-first semantics keep `.*?` lazy.
    if (!re.Match(key, 0, key.size(), RE2::UNANCHORED, groups.data(),
                  static_cast<int>(groups.size())))
      return std::nullopt;
    return std::string(groups.back().data(), groups.back().size());
  };
  std::optional<std::string> idx;
  if (patterns.empty()) {
    idx = first(R"(.*?\.[^.]*\.(?P<idx>\d+)\.)");
  } else {
    for (const std::string& p : patterns)
      if ((idx = first("(?:^|.*?\\.)" + p + "\\.(?P<idx>\\d+)\\.")))
        break;
  }
  if (!idx || idx->empty() || idx->size() > 15)
    return std::nullopt;
  return std::stoll(*idx);
}

Pattern pattern_key(std::string_view key) {
  return Pattern("(.*\\.)?(" + std::string(key) + ")$", Pattern::Anchor::Start);
}

Pattern saved_exclusion(std::string_view m) {
  return Pattern("(^|.*\\.)" + std::string(m) + "($|\\..*)", Pattern::Anchor::Start);
}

} // namespace opscope::dialects::peft::detail
