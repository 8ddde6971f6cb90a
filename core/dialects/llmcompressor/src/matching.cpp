#include "matching.h"
#include "opscope/dialects/python_regex.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

namespace opscope::dialects::llmcompressor::detail {
namespace {

std::string_view short_name(std::string_view qualified) {
  auto dot = qualified.rfind('.');
  return dot == std::string_view::npos ? qualified : qualified.substr(dot + 1);
}

} // namespace

Target::Target(std::string text) : text_(std::move(text)) {
  if (!text_.starts_with("re:"))
    return;
  // The pattern alone decides whether it compiles (wrapped, `x)|(y` would), then re.match(P)
  // is P anchored at the start as a whole (names hold no newline, so Python's `$` before a
  // final newline never differs).
  raw_ = std::make_unique<RE2>(text_.substr(3), python_pattern_options());
  if (raw_->ok())
    regex_ = std::make_unique<RE2>("^(?:" + text_.substr(3) + ")", python_pattern_options());
}

std::string Target::error() const {
  return raw_ ? raw_->error() : std::string();
}

namespace {

// Where Python's re.error points for an unbalanced bracket: the `(` or `[` left open, or the
// `)` that closes nothing; npos when the brackets balance.
std::size_t unbalanced(std::string_view p) {
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\') {
      ++i;
    } else if (p[i] == '[') {
      std::size_t j = i + 1;
      if (j < p.size() && p[j] == '^')
        ++j;
      if (j < p.size() && p[j] == ']')
        ++j;
      while (j < p.size() && p[j] != ']')
        j += p[j] == '\\' ? 2 : 1;
      if (j >= p.size())
        return i;
      i = j;
    } else if (p[i] == '(') {
      open.push_back(i);
    } else if (p[i] == ')') {
      if (open.empty())
        return i;
      open.pop_back();
    }
  }
  return open.empty() ? std::string_view::npos : open.back();
}

} // namespace

std::size_t Target::error_offset() const {
  if (!bad())
    return 0;
  std::string pattern = text_.substr(3);
  if (std::size_t at = unbalanced(pattern); at != std::string::npos)
    return at;
  const std::string& arg = raw_->error_arg();
  auto at = arg.empty() ? std::string::npos : pattern.find(arg);
  return at == std::string::npos ? 0 : at;
}

std::string Target::problem() const {
  return "bad regular expression `" + text_ + "`: " + error() + " (at position " +
         std::to_string(error_offset()) + " of the pattern)";
}

bool Target::matches_name(std::string_view name) const {
  if (!raw_)
    return name == text_;
  return regex_ && regex_->ok() && RE2::PartialMatch(name, *regex_);
}

void Target::bind(const index::Index& model, const EntryMatches* memo) {
  if (memo && (bound_ = memo->find(text_)))
    return;
  const auto& modules = model.named_modules();
  auto bits = std::make_shared<ModuleBits>(modules.size());
  for (std::size_t i = 0; i < modules.size(); ++i)
    (*bits)[i] = static_cast<std::uint8_t>((matches_name(modules[i].name) ? kByName : 0) |
                                           (matches_class(modules[i], text_) ? kByClass : 0));
  bound_ = bits;
  if (memo)
    memo->keep(text_, bound_);
}

std::shared_ptr<const Target::ModuleBits> EntryMatches::find(const std::string& text) const {
  std::lock_guard lock(mutex_);
  auto at = kept_.find(text);
  return at == kept_.end() ? nullptr : at->second;
}

void EntryMatches::keep(const std::string& text,
                        std::shared_ptr<const Target::ModuleBits> bits) const {
  std::size_t size = text.size() + bits->size() + 64; // the key, the bits, the node
  std::lock_guard lock(mutex_);
  if (bytes_ + size > kMaxBytes) {
    kept_.clear();
    bytes_ = 0;
  }
  if (kept_.emplace(text, std::move(bits)).second)
    bytes_ += size;
}

std::vector<std::string> class_names(const index::ModuleObject& module) {
  std::vector<std::string> out;
  if (!module.type.empty())
    out.emplace_back(short_name(module.type));
  for (const std::string& base : module.mro)
    out.emplace_back(short_name(base));
  out.emplace_back("Module");
  return out;
}

// Asked for every module and every entry on each check: compares in place, where building
// class_names() each time was most of a 100-entry re-check (callgrind).
bool matches_class(const index::ModuleObject& module, std::string_view target) {
  if (target.find(':') != std::string_view::npos)
    return false; // `:` is in no class name
  auto is = [&](std::string_view c) {
    return c == target || (c == "LinearBase" && target == "Linear");
  };
  if (target == "Module" || (!module.type.empty() && is(short_name(module.type))))
    return true;
  return std::any_of(module.mro.begin(), module.mro.end(),
                     [&](const std::string& base) { return is(short_name(base)); });
}

bool target_order(const std::string& a, const std::string& b) {
  bool ra = a.find("re:") != std::string::npos, rb = b.find("re:") != std::string::npos;
  if (ra != rb)
    return !ra;
  return a < b; // UTF-8 bytes sort as Python's code points
}

bool is_attention(const index::Index& model, int module) {
  const index::ModuleObject& m = model.named_modules()[static_cast<std::size_t>(module)];
  std::string cls(short_name(m.type));
  for (char& c : cls)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (cls.find("attention") == std::string::npos)
    return false;
  std::string prefix = m.name.empty() ? "" : m.name + ".";
  for (const char* child : {"k_proj", "v_proj", "qkv_proj", "kv_b_proj"})
    if (model.find_module_object(prefix + child) >= 0)
      return true;
  return false;
}

std::string common_ancestor(const std::string& a, const std::optional<std::string>& b) {
  std::string s1 = "." + (b ? std::min(a, *b) : a) + ".";
  std::string s2 = "." + (b ? std::max(a, *b) : a) + ".";
  std::size_t n = 0;
  while (n < s1.size() && n < s2.size() && s1[n] == s2[n])
    ++n;
  std::string prefix = s1.substr(0, n);
  auto dot = prefix.rfind('.');
  return dot == std::string::npos || dot == 0 ? std::string() : prefix.substr(1, dot - 1);
}

ModuleSets match_modules_set(const index::Index& model, const std::vector<Target>& targets) {
  ModuleSets out;
  const auto& modules = model.named_modules();
  std::size_t n = targets.size();
  std::vector<std::vector<int>> matches(n);
  std::optional<std::string> parent_context;
  // unmatched_targets is a set of strings: a target written twice is one key.
  auto all_keys = [&] {
    std::set<std::string> keys;
    for (const Target& t : targets)
      keys.insert(t.text());
    return keys;
  };
  std::set<std::string> unmatched = all_keys();
  auto key_lists = [&] {
    // matches[target] per written target; a repeated string shares its list (a dict key).
    std::vector<std::vector<int>> lists(n);
    for (std::size_t t = 0; t < n; ++t)
      for (std::size_t u = 0; u < n; ++u)
        if (targets[u].text() == targets[t].text())
          lists[t].insert(lists[t].end(), matches[u].begin(), matches[u].end());
    return lists;
  };
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const index::ModuleObject& m = modules[i];
    std::set<std::string> matched_here;
    for (std::size_t t = 0; t < n; ++t) {
      if (!targets[t].matches_name(m.name) && !matches_class(m, targets[t].text()))
        continue;
      std::string context = common_ancestor(m.name, parent_context);
      if (unmatched.empty() && (!parent_context || context != *parent_context)) {
        out.sets.push_back(key_lists());
        matches.assign(n, {});
        context = m.name;
        unmatched = all_keys();
      }
      // matches[target].append: a repeated string appends to its first list once per copy.
      std::size_t first = t;
      for (std::size_t u = 0; u < t; ++u)
        if (targets[u].text() == targets[t].text()) {
          first = u;
          break;
        }
      matches[first].push_back(static_cast<int>(i));
      parent_context = context;
      unmatched.erase(targets[t].text());
      matched_here.insert(targets[t].text());
      out.found = true;
    }
    if (matched_here.size() > 1) {
      std::string names;
      for (const std::string& s : matched_here)
        names += (names.empty() ? "'" : ", '") + s + "'";
      out.error = "module: " + m.name + " was matched with multiple targets: {" + names +
                  "} which is unexpected";
      return out;
    }
  }
  if (unmatched == all_keys())
    return out;
  if (unmatched.empty()) {
    out.sets.push_back(key_lists());
    return out;
  }
  std::string found, missing;
  for (const std::string& k : all_keys())
    (unmatched.count(k) ? missing : found) +=
        (unmatched.count(k) ? missing : found).empty() ? "'" + k + "'" : ", '" + k + "'";
  out.error = "Found a final incomplete set with matches found for keys: {" + found +
              "} but no matches found for keys: {" + missing + "}";
  return out;
}

} // namespace opscope::dialects::llmcompressor::detail
