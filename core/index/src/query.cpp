#include "opscope/index/query.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <atomic>
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

// The cache's keys are (table, text) views, looked up without building a string: the editor's
// check of a 50,000-key config looks each key up several times.
struct KeyHash {
  std::size_t operator()(const QueryEngine::Key& k) const {
    return std::hash<std::string_view>{}(k.text) * 31 + static_cast<std::size_t>(k.kind);
  }
};
struct KeyEqual {
  bool operator()(const QueryEngine::Key& a, const QueryEngine::Key& b) const {
    return a.kind == b.kind && a.text == b.text;
  }
};

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

// Guarded by its mutex: the editor's request thread and its background check share queries.
struct Query::ModuleMemo {
  explicit ModuleMemo(std::uint64_t e) : engine(e) {}
  const std::uint64_t engine;
  std::mutex mutex;
  bool known = false;
  std::vector<int> modules;
};

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

// One compiled query in the cache. A held entry (holds > 0) is never evicted, and freed with its
// last hold; the others sit in `recent`, least recently used last.
struct QueryEngine::CacheEntry {
  std::shared_ptr<const Query> query;
  std::size_t bytes = 0;
  std::size_t holds = 0;
  std::list<CacheEntry*>::iterator in_recent; // while holds == 0
  Key key() const { return {query->kind(), query->text()}; }
};

struct QueryEngine::QueryCache {
  explicit QueryCache(QueryCacheLimits l) : limits(l) {}
  // The entry, a list node, a hash node and the shared_ptr's control block.
  static constexpr std::size_t kNodeBytes = 128;
  // Entries taken out under the mutex, destroyed once it is released: freeing a closed
  // document's 50,000 RE2 programs must not stall the lookups of other threads.
  using Freed = std::vector<std::unique_ptr<CacheEntry>>;

  CacheEntry* find(const Key& key) {
    auto found = by_key.find(key);
    return found == by_key.end() ? nullptr : found->second.get();
  }
  // Adds `entry` unheld, as the most recently used.
  CacheEntry& insert(std::unique_ptr<CacheEntry> entry) {
    CacheEntry& e = *entry;
    by_key.emplace(e.key(), std::move(entry));
    recent.push_front(&e);
    e.in_recent = recent.begin();
    recent_bytes += e.bytes;
    return e;
  }
  void touch(CacheEntry& e) {
    if (e.holds == 0)
      recent.splice(recent.begin(), recent, e.in_recent);
  }
  // One hold more on `e`; false (and nothing changed) when it would pass max_held_bytes.
  bool hold(CacheEntry& e) {
    if (e.holds == 0) {
      if (held_bytes + e.bytes > limits.max_held_bytes)
        return false;
      recent.erase(e.in_recent);
      recent_bytes -= e.bytes;
      held_bytes += e.bytes;
    }
    ++e.holds;
    return true;
  }
  // One hold less; the last one frees the entry.
  void let_go(CacheEntry& e, Freed& freed) {
    if (--e.holds != 0)
      return;
    held_bytes -= e.bytes;
    auto node = by_key.extract(e.key());
    freed.push_back(std::move(node.mapped()));
  }
  // Evicts the least recently used unheld entries past the budget.
  void trim(Freed& freed) {
    while (recent.size() > limits.max_entries || recent_bytes > limits.max_bytes) {
      CacheEntry* last = recent.back();
      recent.pop_back();
      recent_bytes -= last->bytes;
      auto node = by_key.extract(last->key());
      freed.push_back(std::move(node.mapped()));
    }
  }

  QueryCacheLimits limits;
  std::mutex mutex;
  std::unordered_map<Key, std::unique_ptr<CacheEntry>, KeyHash, KeyEqual>
      by_key;                    // views of queries
  std::list<CacheEntry*> recent; // unheld entries, most recently used first
  std::size_t recent_bytes = 0;
  std::size_t held_bytes = 0;
};

namespace {
std::uint64_t next_engine_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}
} // namespace

QueryEngine::QueryEngine(const Index& index, QueryCacheLimits limits)
    : index_(index), id_(next_engine_id()), queries_(std::make_shared<QueryCache>(limits)) {
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

Query::ModuleMemo* QueryEngine::memo_of(const Query& query) const {
  return query.module_memo_ && query.module_memo_->engine == id_ ? query.module_memo_.get()
                                                                 : nullptr;
}

std::vector<int> QueryEngine::match_modules(const Query& query) const {
  Query::ModuleMemo* memo = memo_of(query);
  if (memo) {
    std::lock_guard<std::mutex> lock(memo->mutex);
    if (memo->known)
      return memo->modules;
  }
  std::vector<int> out = match_modules_uncached(query);
  if (memo) {
    std::lock_guard<std::mutex> lock(memo->mutex);
    memo->modules = out;
    memo->known = true;
  }
  return out;
}

std::vector<int> QueryEngine::match_modules_uncached(const Query& query) const {
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

std::vector<std::vector<int>>
QueryEngine::match_modules_each(const std::vector<const Query*>& queries) const {
  std::vector<std::vector<int>> out(queries.size());
  std::vector<std::size_t> in_set; // positions in `queries` of the set's patterns, in order
  std::vector<std::size_t> alone;  // the others not answered before
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const Query* q = queries[i];
    if (!q)
      continue;
    if (Query::ModuleMemo* memo = memo_of(*q)) {
      std::lock_guard<std::mutex> lock(memo->mutex);
      if (memo->known) {
        out[i] = memo->modules;
        continue;
      }
    }
    if (q->usable() && q->kind() == Table::ModuleName && q->regex_)
      in_set.push_back(i);
    else
      alone.push_back(i);
  }
  // One RE2::Set for a config's few new patterns (a 100-key config on GPT-384's 4,000 modules).
  // Not for thousands (the first check of a big config): a set of 50,000 patterns passes RE2's
  // memory budget with its program alone, and failed after its compile; each is matched alone,
  // once, since its answer is kept.
  constexpr std::size_t kMostInASet = 500;
  if (in_set.size() < 2 || in_set.size() > kMostInASet ||
      !match_in_one_set(queries, in_set, 0, in_set.size(), out))
    alone.insert(alone.end(), in_set.begin(), in_set.end());
  for (std::size_t i : alone)
    out[i] = match_modules(*queries[i]);
  return out;
}

bool QueryEngine::match_in_one_set(const std::vector<const Query*>& queries,
                                   const std::vector<std::size_t>& in_set, std::size_t first,
                                   std::size_t last, std::vector<std::vector<int>>& out) const {
  RE2::Set set(regex_options(), RE2::ANCHOR_BOTH);
  for (std::size_t k = first; k < last; ++k)
    if (set.Add(queries[in_set[k]]->text_, nullptr) < 0)
      return false; // cannot happen for patterns RE2 compiled alone; be safe
  if (!set.Compile())
    return false;
  std::vector<std::vector<int>> found(last - first);
  std::vector<int> hits;
  RE2::Set::ErrorInfo error{RE2::Set::kNoError};
  // Ascending module order, as match_modules() returns it.
  for (std::size_t m = 0; m < index_.modules.size(); ++m) {
    const std::string& name = index_.modules[m].name;
    hits.clear();
    if (set.Match(re2::StringPiece(name.data(), name.size()), &hits, &error)) {
      for (int h : hits)
        found[static_cast<std::size_t>(h)].push_back(static_cast<int>(m));
    } else if (error.kind != RE2::Set::kNoError) {
      return false; // the DFA's memory budget ran out: one pattern at a time instead
    }
  }
  for (std::size_t k = first; k < last; ++k) {
    std::size_t i = in_set[k];
    out[i] = std::move(found[k - first]);
    if (Query::ModuleMemo* memo = memo_of(*queries[i])) {
      std::lock_guard<std::mutex> lock(memo->mutex);
      memo->modules = out[i];
      memo->known = true;
    }
  }
  return true;
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

std::unique_ptr<QueryEngine::CacheEntry> QueryEngine::compile(Table kind,
                                                              std::string_view text) const {
  // Narrowing by RE2's match range pays only on long name lists (big models).
  constexpr std::size_t kNamesWorthARange = 256;
  bool find_range = std::max(module_names_.size(), op_names_.size()) > kNamesWorthARange;
  auto entry = std::make_unique<CacheEntry>();
  auto query = std::make_shared<Query>(kind, std::string(text), find_range);
  std::size_t memo_bytes = 0;
  if (kind == Table::ModuleName || kind == Table::ModuleType) {
    query->module_memo_ = std::make_unique<Query::ModuleMemo>(id_);
    memo_bytes = sizeof(Query::ModuleMemo) + 32; // and the few modules a key names, typically
  }
  entry->query = std::move(query);
  entry->bytes = entry->query->estimated_bytes() + memo_bytes + QueryCache::kNodeBytes;
  return entry;
}

std::shared_ptr<const Query> QueryEngine::query(Table kind, const std::string& text) const {
  QueryCache& cache = *queries_;
  QueryCache::Freed freed; // destroyed after the lock below is released
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (CacheEntry* found = cache.find({kind, text})) {
    cache.touch(*found);
    return found->query;
  }
  std::unique_ptr<CacheEntry> made = compile(kind, text);
  if (made->bytes > cache.limits.max_bytes) // larger than the whole budget: used once, not kept
    return made->query;
  CacheEntry& entry = cache.insert(std::move(made));
  cache.trim(freed);
  return entry.query;
}

QueryEngine::Hold QueryEngine::hold(const std::vector<Key>& keys) const {
  Hold out;
  out.cache_ = queries_;
  out.entries_.reserve(keys.size());
  QueryCache& cache = *queries_;
  for (const Key& k : keys) {
    // One key at a time under the lock: a compile is short, and other threads' lookups pass.
    QueryCache::Freed freed;
    std::lock_guard<std::mutex> lock(cache.mutex);
    CacheEntry* entry = cache.find(k);
    if (!entry)
      entry = &cache.insert(compile(k.kind, k.text));
    if (cache.hold(*entry))
      out.entries_.push_back(entry);
    else
      cache.trim(freed); // past max_held_bytes: cached like any lookup
  }
  return out;
}

QueryEngine::Hold& QueryEngine::Hold::operator=(Hold&& other) noexcept {
  if (this != &other) {
    release();
    cache_ = std::move(other.cache_);
    entries_ = std::move(other.entries_);
    other.entries_.clear();
  }
  return *this;
}

void QueryEngine::Hold::release() {
  std::shared_ptr<QueryCache> cache = cache_.lock();
  cache_.reset();
  std::vector<CacheEntry*> entries = std::move(entries_);
  entries_.clear();
  if (!cache || entries.empty())
    return; // the engine is gone, and its entries with it
  // Destroyed last, with no lock held: freeing a closed document's 50,000 RE2 programs must
  // not stall the lookups of other threads.
  QueryCache::Freed freed;
  std::lock_guard<std::mutex> lock(cache->mutex);
  for (CacheEntry* entry : entries)
    cache->let_go(*entry, freed);
}

std::size_t QueryEngine::cached_queries() const {
  std::lock_guard<std::mutex> lock(queries_->mutex);
  return queries_->by_key.size();
}

std::size_t QueryEngine::cached_bytes() const {
  std::lock_guard<std::mutex> lock(queries_->mutex);
  return queries_->recent_bytes + queries_->held_bytes;
}

std::size_t QueryEngine::held_bytes() const {
  std::lock_guard<std::mutex> lock(queries_->mutex);
  return queries_->held_bytes;
}

std::vector<int> QueryEngine::all_ops(Compressor compressor) const {
  std::vector<int> positions(order_.size());
  for (size_t i = 0; i < order_.size(); ++i)
    positions[i] = static_cast<int>(i);
  return finish(std::move(positions), compressor);
}

} // namespace opscope::index
