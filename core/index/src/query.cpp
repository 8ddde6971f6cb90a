#include "opscope/index/query.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <cctype>
#include <list>
#include <mutex>

namespace opscope::index {
namespace {

struct PythonOnlyConstruct {
  std::string_view text;
  const char* what;
};

// Constructs Python's `re` accepts and RE2 rejects.
constexpr PythonOnlyConstruct kPythonOnly[] = {
    {"(?<=", "look-behind `(?<=...)`"},
    {"(?<!", "negative look-behind `(?<!...)`"},
    {"(?=", "look-ahead `(?=...)`"},
    {"(?!", "negative look-ahead `(?!...)`"},
    {"(?P=", "named back-reference `(?P=name)`"},
    {"(?>", "atomic group `(?>...)`"},
    {"(?(", "conditional group `(?(id)yes|no)`"},
};

// Finds a Python-only construct outside character classes; fills status if found.
bool find_python_only(std::string_view pattern, PatternStatus& status) {
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      char next = pattern[i + 1];
      if (!in_class && next >= '1' && next <= '9') {
        status = {PatternStatus::Kind::PythonOnly, std::string("back-reference `\\") + next + "`",
                  static_cast<int>(i)};
        return true;
      }
      if (!in_class && next == 'Z') {
        status = {PatternStatus::Kind::PythonOnly, "end-of-string anchor `\\Z`",
                  static_cast<int>(i)};
        return true;
      }
      ++i;
      continue;
    }
    if (in_class) {
      if (c == ']')
        in_class = false;
      continue;
    }
    if (c == '[') {
      in_class = true;
      if (i + 1 < pattern.size() && pattern[i + 1] == ']')
        ++i; // "[]...]": a leading ] is literal
      continue;
    }
    for (const auto& construct : kPythonOnly) {
      if (pattern.substr(i, construct.text.size()) == construct.text) {
        status = {PatternStatus::Kind::PythonOnly, construct.what, static_cast<int>(i)};
        return true;
      }
    }
    // Possessive quantifiers (Python 3.11+): *+ ++ ?+ }+
    if ((c == '*' || c == '+' || c == '?' || c == '}') && i + 1 < pattern.size() &&
        pattern[i + 1] == '+' && i > 0) {
      status = {PatternStatus::Kind::PythonOnly, std::string("possessive quantifier `") + c + "+`",
                static_cast<int>(i)};
      return true;
    }
  }
  return false;
}

RE2::Options regex_options() {
  RE2::Options options;
  options.set_log_errors(false);
  // Names never contain a newline, so `.` matching one changes no answer, and a boolean
  // full match does not depend on leftmost-first vs longest semantics; together they let
  // RE2 take its fast paths (`.*_1` over 50k names: 45 ms -> 3 ms).
  options.set_dot_nl(true);
  options.set_longest_match(true);
  return options;
}

bool has_regex_syntax(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    return std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos;
  });
}

} // namespace

PatternStatus check_pattern(std::string_view pattern) {
  RE2 regex(re2::StringPiece(pattern.data(), pattern.size()), regex_options());
  if (regex.ok())
    return {};
  PatternStatus status;
  if (find_python_only(pattern, status))
    return status;
  status.kind = PatternStatus::Kind::Invalid;
  status.reason = regex.error();
  const std::string& arg = regex.error_arg();
  if (!arg.empty()) {
    auto at = pattern.find(arg);
    status.offset = at == std::string_view::npos ? -1 : static_cast<int>(at);
  }
  return status;
}

Query::Query(Table kind, std::string text, bool find_range) : kind_(kind), text_(std::move(text)) {
  if (!coreai::is_pattern_table(kind_)) {
    literal_ = true;
    return;
  }
  if (!has_regex_syntax(text_)) {
    literal_ = true;
    return;
  }
  // Compiled once; check_pattern (a second compile) only explains a failure.
  regex_ = std::make_unique<RE2>(text_, regex_options());
  if (!regex_->ok()) {
    status_ = check_pattern(text_);
    regex_.reset();
    return;
  }
  if (find_range)
    has_range_ = regex_->PossibleMatchRange(&range_min_, &range_max_, 16);
}

std::size_t Query::estimated_bytes() const {
  std::size_t bytes = sizeof(Query) + text_.capacity() + range_min_.capacity() +
                      range_max_.capacity() + literal_prefix_.capacity();
  if (regex_) {
    // Measured with mallinfo2 over 50,000 patterns of 27 and 82 instructions: the RE2 object
    // and its program take ~2 KB + 40 B per instruction, the DFA (built for the match range,
    // or lazily by matching) ~4 KB + 64 B per instruction more.
    std::size_t instructions = static_cast<std::size_t>(std::max(regex_->ProgramSize(), 0));
    bytes += 6144 + 104 * instructions + text_.size();
  }
  return bytes;
}

Query::~Query() = default;
Query::Query(Query&&) noexcept = default;
Query& Query::operator=(Query&&) noexcept = default;

bool Query::matches(std::string_view name) const {
  if (literal_)
    return name == text_;
  if (!regex_)
    return false;
  // Match with both ends anchored is FullMatch without its argument handling, which cost
  // a fifth of a GPT-384 config check (one call per pattern and module name).
  return regex_->Match(re2::StringPiece(name.data(), name.size()), 0, name.size(), RE2::ANCHOR_BOTH,
                       nullptr, 0);
}

struct QueryEngine::QueryCache {
  // Least recently used first out: the patterns the open documents use stay compiled (a
  // re-check looks each one up again), while variants a user typed and deleted, or patterns
  // of a closed config, age out one at a time instead of growing memory until a reset.
  // Above the key count of a generated config (50,000 keys), or every check of it compiles
  // every pattern again.
  // Bounded by count and by estimated bytes (QueryCacheLimits).
  explicit QueryCache(QueryCacheLimits l) : limits(l) {}
  using Entry = std::pair<std::string, std::shared_ptr<const Query>>;
  static std::size_t bytes_of(const Entry& e) {
    return e.first.capacity() + e.second->estimated_bytes() + kNodeBytes;
  }
  // A list node, a hash node and the shared_ptr's control block.
  static constexpr std::size_t kNodeBytes = 128;
  QueryCacheLimits limits;
  std::size_t bytes = 0;
  std::mutex mutex;
  std::list<Entry> recent; // most recently used first
  std::unordered_map<std::string_view, std::list<Entry>::iterator> by_key; // keys in `recent`
};

QueryEngine::QueryEngine(const Index& index, QueryCacheLimits limits)
    : index_(index), queries_(std::make_unique<QueryCache>(limits)) {
  subtree_.assign(index_.modules.size(), {0, 0});
  if (!index_.modules.empty())
    add_module(0);
  under_root_.reserve(order_.size());
  for (int position : order_) {
    const auto& stack = index_.ops[position].module_stack;
    under_root_.push_back(!stack.empty() && stack.front().name.empty());
  }
  for (size_t i = 0; i < order_.size(); ++i) {
    op_names_.push_back({index_.ops[order_[i]].name, static_cast<int>(i)});
    by_type_[index_.ops[order_[i]].type].push_back(static_cast<int>(i));
  }
  for (size_t m = 1; m < index_.modules.size(); ++m)
    module_names_.push_back({index_.modules[m].name, static_cast<int>(m)});
  auto by_name = [](const Name& a, const Name& b) { return a.name < b.name; };
  std::sort(op_names_.begin(), op_names_.end(), by_name);
  std::sort(module_names_.begin(), module_names_.end(), by_name);
}

// coreai-opt's ModuleInfo.all_ops(): a module's own ops, then each child's, depth first;
// so every module's subtree is one contiguous range of order_.
void QueryEngine::add_module(int module) {
  const Module& m = index_.modules[module];
  int begin = static_cast<int>(order_.size());
  for (int position : m.ops)
    if (index_.ops[position].kind == OpKind::Call)
      order_.push_back(position);
  for (int child : m.children)
    add_module(child);
  subtree_[module] = {begin, static_cast<int>(order_.size())};
}

template <typename Emit>
void QueryEngine::scan_names(const std::vector<Name>& sorted, const Query& query, Emit emit) const {
  auto less = [](const Name& a, std::string_view b) { return a.name < b; };
  if (query.is_literal()) {
    for (auto it = std::lower_bound(sorted.begin(), sorted.end(), query.text(), less);
         it != sorted.end() && it->name == query.text(); ++it)
      emit(it->id);
    return;
  }
  auto first = sorted.begin();
  auto last = sorted.end();
  if (query.has_range_) {
    first = std::lower_bound(sorted.begin(), sorted.end(), query.range_min_, less);
    last = std::upper_bound(first, sorted.end(), std::string_view(query.range_max_),
                            [](std::string_view a, const Name& b) { return a < b.name; });
  }
  for (auto it = first; it != last; ++it)
    if (query.matches(it->name))
      emit(it->id);
}

std::vector<int> QueryEngine::ops_under_matching_modules(const Query& query) const {
  // Each module's ops are one contiguous run of order_, so a query costs the modules it
  // matches plus the ops it returns, not a pass over every op of the model.
  std::vector<std::pair<int, int>> runs;
  auto pick_module = [&](int module) {
    auto [begin, end] = subtree_[module];
    if (begin < end)
      runs.emplace_back(begin, end);
  };
  const Module& root = index_.root();
  bool root_matches = false;
  if (query.kind() == Table::ModuleName) {
    root_matches = query.matches(root.name);
    scan_names(module_names_, query, pick_module);
  } else {
    root_matches = root.type == query.text();
    for (size_t m = 1; m < index_.modules.size(); ++m)
      if (index_.modules[m].type == query.text())
        pick_module(static_cast<int>(m));
  }
  std::sort(runs.begin(), runs.end());
  std::vector<int> positions;
  if (!root_matches) {
    int next = 0; // runs nest or overlap: emit each position once, in order
    for (auto [begin, end] : runs) {
      for (int i = std::max(begin, next); i < end; ++i)
        positions.push_back(i);
      next = std::max(next, end);
    }
    return positions;
  }
  // The root matches (a pattern such as `.*`): everything under it, plus the runs.
  std::vector<bool> picked(order_.size(), false);
  for (auto [begin, end] : runs)
    std::fill(picked.begin() + begin, picked.begin() + end, true);
  for (size_t i = 0; i < order_.size(); ++i)
    if (picked[i] || under_root_[i])
      positions.push_back(static_cast<int>(i));
  return positions;
}

std::vector<int> QueryEngine::match_modules(const Query& query) const {
  std::vector<int> out;
  if (!query.usable())
    return out;
  if (query.kind() == Table::ModuleName) {
    if (query.matches(index_.root().name))
      out.push_back(0);
    scan_names(module_names_, query, [&](int m) { out.push_back(m); });
    std::sort(out.begin(), out.end());
  } else if (query.kind() == Table::ModuleType) {
    for (size_t m = 0; m < index_.modules.size(); ++m)
      if (index_.modules[m].type == query.text())
        out.push_back(static_cast<int>(m));
  }
  return out;
}

namespace {

// The sets of patterns compiled last, with the DFA states their matching built: the editor
// re-checks the same config keys after every edit, and compiling the set and its DFA anew each
// time cost more than the matching. A set depends on its patterns only, not on a model. At most
// kKeptSets, each within RE2's default memory budget (8 MB).
class PatternSets {
public:
  std::shared_ptr<const RE2::Set> get(const std::vector<const std::string*>& patterns) {
    std::string key;
    for (const std::string* p : patterns) {
      key += std::to_string(p->size());
      key += ':';
      key += *p;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = kept_.begin(); it != kept_.end(); ++it)
      if (it->first == key) {
        kept_.splice(kept_.begin(), kept_, it);
        return kept_.front().second;
      }
    auto set = std::make_shared<RE2::Set>(regex_options(), RE2::ANCHOR_BOTH);
    for (const std::string* p : patterns)
      if (set->Add(*p, nullptr) < 0)
        return nullptr; // cannot happen for patterns RE2 compiled alone; be safe
    if (!set->Compile())
      return nullptr;
    kept_.emplace_front(std::move(key), set);
    if (kept_.size() > kKeptSets)
      kept_.pop_back();
    return set;
  }

private:
  static constexpr std::size_t kKeptSets = 4;
  std::mutex mutex_;
  std::list<std::pair<std::string, std::shared_ptr<const RE2::Set>>> kept_;
};

PatternSets& pattern_sets() {
  static PatternSets sets;
  return sets;
}

} // namespace

std::vector<std::vector<int>>
QueryEngine::match_modules_each(const std::vector<const Query*>& queries) const {
  std::vector<std::vector<int>> out(queries.size());
  std::vector<std::size_t> in_set; // positions in `queries` of the set's patterns, in order
  std::vector<const std::string*> patterns;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const Query* q = queries[i];
    if (q && q->usable() && q->kind() == Table::ModuleName && q->regex_) {
      in_set.push_back(i);
      patterns.push_back(&q->text_);
    }
  }
  std::shared_ptr<const RE2::Set> set;
  if (in_set.size() > 1)
    set = pattern_sets().get(patterns);
  bool pooled = set != nullptr;
  if (pooled) {
    std::vector<int> hits;
    RE2::Set::ErrorInfo error{RE2::Set::kNoError};
    // Ascending module order, as match_modules() returns it.
    for (std::size_t m = 0; m < index_.modules.size() && pooled; ++m) {
      const std::string& name = index_.modules[m].name;
      hits.clear();
      if (set->Match(re2::StringPiece(name.data(), name.size()), &hits, &error)) {
        for (int h : hits)
          out[in_set[static_cast<std::size_t>(h)]].push_back(static_cast<int>(m));
      } else if (error.kind != RE2::Set::kNoError) {
        pooled = false; // the DFA's memory budget ran out: one pattern at a time instead
      }
    }
  }
  std::size_t next_in_set = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    bool from_set = next_in_set < in_set.size() && in_set[next_in_set] == i;
    next_in_set += from_set ? 1 : 0;
    if (from_set && pooled)
      continue;
    out[i] = queries[i] ? match_modules(*queries[i]) : std::vector<int>{};
  }
  return out;
}

std::vector<int> QueryEngine::finish(std::vector<int> order_positions,
                                     Compressor compressor) const {
  if (!std::is_sorted(order_positions.begin(), order_positions.end()))
    std::sort(order_positions.begin(), order_positions.end());
  std::vector<int> ops;
  ops.reserve(order_positions.size());
  for (int i : order_positions)
    if (index_.ops[order_[i]].compressible_by(compressor))
      ops.push_back(order_[i]);
  return ops;
}

std::vector<int> QueryEngine::match(const Query& query, Compressor compressor) const {
  if (!query.usable())
    return {};
  switch (query.kind()) {
  case Table::OpType: {
    std::vector<int> positions;
    if (index_.compressor_types.empty() || compressor == Compressor::None) {
      if (auto it = by_type_.find(query.text()); it != by_type_.end())
        positions = it->second;
    } else {
      for (size_t i = 0; i < order_.size(); ++i)
        if (index_.type_for(index_.ops[order_[i]], compressor) == query.text())
          positions.push_back(static_cast<int>(i));
    }
    return finish(std::move(positions), compressor);
  }
  case Table::OpName: {
    std::vector<int> positions;
    scan_names(op_names_, query, [&](int i) { positions.push_back(i); });
    return finish(std::move(positions), compressor);
  }
  case Table::ModuleName:
  case Table::ModuleType:
    return finish(ops_under_matching_modules(query), compressor);
  }
  return {};
}

QueryEngine::~QueryEngine() = default;
QueryEngine::QueryEngine(QueryEngine&&) noexcept = default;

std::shared_ptr<const Query> QueryEngine::query(Table kind, const std::string& text) const {
  std::string key = std::string(1, static_cast<char>('0' + static_cast<int>(kind))) + text;
  std::lock_guard<std::mutex> lock(queries_->mutex);
  QueryCache& cache = *queries_;
  if (auto found = cache.by_key.find(key); found != cache.by_key.end()) {
    cache.recent.splice(cache.recent.begin(), cache.recent, found->second);
    return found->second->second;
  }
  // Narrowing by RE2's match range pays only on long name lists (big models).
  constexpr std::size_t kNamesWorthARange = 256;
  bool find_range = std::max(module_names_.size(), op_names_.size()) > kNamesWorthARange;
  auto made = std::make_shared<const Query>(kind, text, find_range);
  cache.recent.emplace_front(std::move(key), made);
  std::size_t added = QueryCache::bytes_of(cache.recent.front());
  if (added > cache.limits.max_bytes) { // larger than the whole budget: used once, not kept
    cache.recent.pop_front();
    return made;
  }
  cache.by_key.emplace(cache.recent.front().first, cache.recent.begin());
  cache.bytes += added;
  while (cache.by_key.size() > cache.limits.max_entries || cache.bytes > cache.limits.max_bytes) {
    cache.bytes -= QueryCache::bytes_of(cache.recent.back());
    cache.by_key.erase(cache.recent.back().first);
    cache.recent.pop_back();
  }
  return made;
}

std::size_t QueryEngine::cached_queries() const {
  std::lock_guard<std::mutex> lock(queries_->mutex);
  return queries_->by_key.size();
}

std::size_t QueryEngine::cached_bytes() const {
  std::lock_guard<std::mutex> lock(queries_->mutex);
  return queries_->bytes;
}

std::vector<int> QueryEngine::all_ops(Compressor compressor) const {
  std::vector<int> positions(order_.size());
  for (size_t i = 0; i < order_.size(); ++i)
    positions[i] = static_cast<int>(i);
  return finish(std::move(positions), compressor);
}

} // namespace opscope::index
