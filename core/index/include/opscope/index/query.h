// The four coreai-opt config lookups over an Index, with coreai-opt's semantics
// (ModelInspector.get_matched_ops_for_*): op type and module type are exact strings; op
// name and module name patterns are Python regexes matched with re.fullmatch, which we
// run with RE2. Only ops the (compressor-filtered) tree shows are candidates, in the
// order coreai-opt lists them (module by module, depth first). Op types compare with the
// type the compressor registers the op under (Index::type_for).
#pragma once

#include "opscope/coreai/tables.h"
#include "opscope/index/index.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace re2 {
class RE2;
}

namespace opscope::index {

// A lookup is one of the config's four tables (coreai::Table): op and module types are
// exact, op and module names full-match regexes (coreai::is_pattern_table).
using coreai::Table;

// How a regex fares: fine, invalid for Python too, or valid Python that RE2 cannot run
// (look-around, back-references, ...): such patterns cannot be checked, only warned about.
struct PatternStatus {
  enum class Kind { Ok, Invalid, PythonOnly };
  Kind kind = Kind::Ok;
  std::string reason; // RE2's message, or the Python-only construct found
  int offset = -1;    // byte offset of the problem in the pattern, -1 if unknown
  bool ok() const { return kind == Kind::Ok; }
};

PatternStatus check_pattern(std::string_view pattern);

// One lookup, compiled once. Exact kinds never fail; pattern kinds carry their status.
class Query {
public:
  // `find_range`: ask RE2 for the bounds of what the pattern can match (a DFA walk, two
  // thirds of a compile), worth it only to narrow a long sorted name list.
  Query(Table kind, std::string text, bool find_range = true);
  ~Query();
  Query(Query&&) noexcept;
  Query& operator=(Query&&) noexcept;

  Table kind() const { return kind_; }
  const std::string& text() const { return text_; }
  const PatternStatus& status() const { return status_; }
  bool usable() const { return status_.ok(); }
  // Exact equality, or RE2 full match; false when the pattern is unusable.
  bool matches(std::string_view name) const;
  // The pattern is a plain string (no regex syntax): it matches at most that one name.
  bool is_literal() const { return literal_; }
  // What this query holds in memory, estimated from RE2's program size (see query.cpp).
  std::size_t estimated_bytes() const;

private:
  Table kind_;
  std::string text_;
  PatternStatus status_;
  std::unique_ptr<re2::RE2> regex_;
  // RE2's bounds on every name the regex can match, found once (it builds a DFA to know).
  std::string range_min_, range_max_;
  bool has_range_ = false;
  std::string literal_prefix_;
  bool literal_ = false;
  // What QueryEngine::match_modules() answered, kept for the engine that compiled this query:
  // the editor re-checks a config's 50,000 keys against the same names after every keystroke.
  struct ModuleMemo;
  std::unique_ptr<ModuleMemo> module_memo_;
  friend class QueryEngine;
};

// Tables built once per Index so each lookup costs about the number of names it could
// match, not the size of the model: patterns run once per distinct module name (then map
// to every op below a matching module), literal names are a binary search, and other
// patterns only test names in RE2's possible-match range. The Index must outlive it.
// How much the QueryEngine keeps compiled. The open documents' patterns are held
// (QueryEngine::hold): they stay compiled while a hold on them lives, within max_held_bytes in
// all (a generated 50,000-key config's take ~9 KB each, measured), and are freed when the last
// hold goes: a closed config leaves nothing behind. Queries no hold keeps (a key being typed, an
// alias looked up during a check) are kept least recently used first within max_entries and
// max_bytes: a small budget, since whatever sits there stays after every document is closed.
struct QueryCacheLimits {
  std::size_t max_entries = std::size_t{1} << 16;
  std::size_t max_bytes = std::size_t{16} << 20;
  std::size_t max_held_bytes = std::size_t{512} << 20;
};

class QueryEngine {
public:
  explicit QueryEngine(const Index& index, QueryCacheLimits limits = {});
  ~QueryEngine();
  QueryEngine(QueryEngine&&) noexcept;

  // Positions in index.ops of the matched ops, in coreai-opt's order; empty if the
  // query is unusable.
  std::vector<int> match(const Query& query, Compressor compressor = Compressor::None) const;
  // Indices into Index::modules of the modules a ModuleName / ModuleType query selects itself
  // (not their children), ascending; the root included when it matches. Empty if unusable.
  // A query this engine compiled (query(), hold()) keeps its answer: asked again, it is a copy.
  std::vector<int> match_modules(const Query& query) const;
  // match_modules() of each query (null entries: empty). Those not answered before are matched
  // in one pass over the module names for all the regex ModuleName queries together (RE2::Set)
  // instead of one pass per pattern: a 100-key config on GPT-384's 4,000 modules spent a
  // quarter of `opscope explain` there. The set is built for the call and freed after it.
  std::vector<std::vector<int>> match_modules_each(const std::vector<const Query*>& queries) const;
  // Every op the summary tree shows for the compressor, in coreai-opt's order.
  std::vector<int> all_ops(Compressor compressor = Compressor::None) const;

  // The query for (kind, text), compiled and analysed once per engine: the editor re-checks
  // a whole config on every edit, and most of its patterns are the ones it saw last time.
  // Held queries stay; others are dropped when not looked up for a while (QueryCacheLimits).
  std::shared_ptr<const Query> query(Table kind, const std::string& text) const;

  // A document's queries, compiled now when not cached, then kept until the returned hold and
  // every other hold on them are gone (see Hold). A query past max_held_bytes is only cached.
  struct Key {
    Table kind;
    std::string_view text;
  };
  class Hold;
  Hold hold(const std::vector<Key>& keys) const;

  // How many compiled queries the engine holds (for tests and memory figures).
  std::size_t cached_queries() const;
  // Their estimated size in bytes (Query::estimated_bytes, plus the cache's own keys).
  std::size_t cached_bytes() const;
  // Of those, the bytes held for documents (hold()).
  std::size_t held_bytes() const;

  const Index& index() const { return index_; }

private:
  struct Name {
    std::string_view name;
    int id; // order position (ops) or module index (modules)
  };
  void add_module(int module);
  std::vector<int> finish(std::vector<int> order_positions, Compressor compressor) const;
  std::vector<int> ops_under_matching_modules(const Query& query) const;
  template <typename Emit>
  void scan_names(const std::vector<Name>& sorted, const Query& query, Emit emit) const;

  // The memo `query` keeps for this engine's answers, null for a query compiled elsewhere.
  Query::ModuleMemo* memo_of(const Query& query) const;
  std::vector<int> match_modules_uncached(const Query& query) const;
  // Matches queries[in_set[first..last)] with one RE2::Set into `out` (and their memos); false
  // when RE2 cannot (its memory budget), `out` untouched.
  bool match_in_one_set(const std::vector<const Query*>& queries,
                        const std::vector<std::size_t>& in_set, std::size_t first, std::size_t last,
                        std::vector<std::vector<int>>& out) const;

  const Index& index_;
  std::uint64_t id_;       // tells this engine's memos from another's (see Query::module_memo_)
  std::vector<int> order_; // op positions in coreai-opt's all_ops order
  std::vector<bool> under_root_;             // order_[i] has the root module in its stack
  std::vector<std::pair<int, int>> subtree_; // module -> [begin, end) in order_ (below root)
  std::vector<Name> op_names_;               // sorted by name
  std::vector<Name> module_names_;           // sorted by name, root excluded
  std::unordered_map<std::string, std::vector<int>> by_type_; // Op::type -> order positions
  struct CacheEntry;
  struct QueryCache;
  std::unique_ptr<CacheEntry> compile(Table kind, std::string_view text) const;
  // Shared with the holds, which may outlive the engine (then they release nothing).
  std::shared_ptr<QueryCache> queries_;
};

// Keeps queries compiled in their engine's cache while it lives: the editor keeps one per open
// document, replaced by each check's, so a re-check finds its patterns compiled and a closed
// document's are freed. Movable; a default one holds nothing.
class QueryEngine::Hold {
public:
  Hold() = default;
  ~Hold() { release(); }
  Hold(Hold&& other) noexcept = default;
  Hold& operator=(Hold&& other) noexcept;
  Hold(const Hold&) = delete;
  Hold& operator=(const Hold&) = delete;

  // How many of the keys it holds (those within the engine's max_held_bytes).
  std::size_t size() const { return entries_.size(); }
  // Lets the queries go: those no other hold keeps are freed (and the RE2::Sets built of them).
  void release();

private:
  friend class QueryEngine;
  std::weak_ptr<QueryCache> cache_;
  std::vector<CacheEntry*> entries_; // valid while cache_ lives: a held entry is never evicted
};

} // namespace opscope::index
