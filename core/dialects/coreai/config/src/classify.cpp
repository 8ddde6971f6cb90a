#include "classify.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace opscope::config::detail {
namespace {

constexpr int kMaxAliasDepth = 32; // alias chains deeper than this are cycles

// The root keys a top-level key means when it names a compressor's config yet is none of
// coreai-opt's root keys: it ends in `_config` and holds the compressor's stem
// (`quantisation_config`, `palettization_config`). Empty for any other key: other YAML (CI
// files, compose files) is still left alone.
std::vector<std::string> root_keys_meant(const std::string& key) {
  if (key.size() < 7 || key.compare(key.size() - 7, 7, "_config") != 0)
    return {};
  std::string lower;
  for (char c : key)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::pair<const char*, Compressor> kStems[] = {
      {"quanti", Compressor::Quantizer},
      {"palett", Compressor::KMeansPalettizer},
      {"kmeans", Compressor::KMeansPalettizer},
      {"prun", Compressor::MagnitudePruner},
      {"sparsi", Compressor::MagnitudePruner}};
  std::vector<std::string> meant;
  for (const auto& [stem, compressor] : kStems) {
    std::string root(coreai::find(compressor)->root_key);
    if (lower.find(stem) != std::string::npos &&
        std::find(meant.begin(), meant.end(), root) == meant.end())
      meant.push_back(root);
  }
  return meant;
}

// field_names, built once: every field entry of every read is checked against them.
// Slot 0 is Compressor::None, slot i + 1 the table's compressor i.
const std::vector<std::string>& known_fields(FieldLevel level, Compressor root) {
  constexpr int kLevels = static_cast<int>(FieldLevel::OpConfig) + 1;
  static const auto table = [] {
    std::vector<std::vector<std::vector<std::string>>> t(kLevels);
    for (int l = 0; l < kLevels; ++l) {
      t[l].push_back(field_names(static_cast<FieldLevel>(l), Compressor::None));
      for (const coreai::CompressorInfo& c : coreai::compressors())
        t[l].push_back(field_names(static_cast<FieldLevel>(l), c.id));
    }
    return t;
  }();
  std::size_t slot = 0;
  auto all = coreai::compressors();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].id == root)
      slot = i + 1;
  return table[static_cast<std::size_t>(level)][slot];
}

// A mapping's entries as coreai-opt sees them: its own plus those merged in
// with `<<: *anchor` (or `<<: [*a, *b]`), each marked when it came through an alias.
struct VisibleEntry {
  const Entry* entry;
  bool via_alias;
};

const Node* resolve(const Node* node, bool& via_alias) {
  for (int depth = 0; node && node->kind == Node::Kind::Alias; ++depth) {
    if (depth > kMaxAliasDepth)
      return nullptr;
    via_alias = true;
    node = node->target;
  }
  return node;
}

// A value YAML / JSON reads as None: nothing, `null`, `~` (through aliases too).
bool is_null(const Node* node) {
  bool via_alias = false;
  node = resolve(node, via_alias);
  if (!node || node->kind == Node::Kind::Null)
    return true;
  if (node->kind != Node::Kind::Scalar || node->quoted)
    return false;
  const std::string& s = node->scalar;
  return s.empty() || s == "null" || s == "Null" || s == "NULL" || s == "~";
}

// Entries reached through aliases and merges, counted across one classification: a
// "billion laughs" document (`<<: [*a, *a, ...]` nested) stops at the limit.
class AliasBudget {
public:
  explicit AliasBudget(std::size_t limit) : remaining_(limit) {}
  // Takes one aliased entry; false (and `where` remembered) once the limit is reached.
  bool take(const Range& where) {
    if (remaining_ > 0) {
      --remaining_;
      return true;
    }
    if (!exceeded_at_)
      exceeded_at_ = where;
    return false;
  }
  const std::optional<Range>& exceeded_at() const { return exceeded_at_; }

private:
  std::size_t remaining_;
  std::optional<Range> exceeded_at_;
};

// Appends `map`'s visible entries; `where` is the alias or merge key that brought it in
// (for the budget's message).
void collect_entries(const Node* map, bool via_alias, int depth, const Range& where,
                     AliasBudget& budget, std::vector<VisibleEntry>& out) {
  if (!map || map->kind != Node::Kind::Map || depth > kMaxAliasDepth)
    return;
  for (const Entry& e : map->entries) {
    if (e.key == "<<" && !e.quoted && e.value) {
      std::vector<const Node*> sources;
      if (e.value->kind == Node::Kind::Seq)
        for (const auto& item : e.value->items)
          sources.push_back(item.get());
      else
        sources.push_back(e.value.get());
      for (const Node* source : sources) {
        if (!budget.take(e.key_range)) // each merge is work too: bounds the walk itself
          return;
        bool aliased = via_alias;
        const Node* merged = resolve(source, aliased); // sets `aliased`: keep it sequenced
        collect_entries(merged, aliased, depth + 1, e.key_range, budget, out);
      }
      continue;
    }
    if (via_alias && !budget.take(where))
      return;
    out.push_back({&e, via_alias});
  }
}

std::vector<VisibleEntry> entries_of(const Node* node, bool& via_alias, int depth,
                                     AliasBudget& budget) {
  std::vector<VisibleEntry> out;
  const Node* map = resolve(node, via_alias);
  collect_entries(map, via_alias, depth, node ? node->range : Range{}, budget, out);
  return out;
}

std::size_t count_entries(const Node& node) {
  std::size_t count = node.entries.size();
  for (const Entry& e : node.entries)
    if (e.value)
      count += count_entries(*e.value);
  for (const auto& item : node.items)
    count += count_entries(*item);
  return count;
}

class Classifier {
public:
  // Aliases may add kMaxAliasedEntries entries beyond those written (each written
  // entry may also be merged once more: a config that shares one spec everywhere is fine).
  Classifier(ConfigDocument& doc, const EntryVisitor& visit, std::size_t written_entries)
      : doc_(doc), visit_(visit), budget_(kMaxAliasedEntries + written_entries) {}

  void document(const Node& root) {
    bool aliased = false;
    std::vector<VisibleEntry> entries = entries_of(&root, aliased, 0, budget_);
    for (const VisibleEntry& v : entries) // the root first: it decides which fields are valid
      if (const coreai::CompressorInfo* c = coreai::find_by_root_key(v.entry->key);
          c && doc_.root == Compressor::None) {
        doc_.root = c->id;
        doc_.root_range = v.entry->key_range;
      }
    for (const VisibleEntry& v : entries) {
      field(*v.entry, FieldLevel::Document, Compressor::None, v.via_alias);
      if (const coreai::CompressorInfo* c = coreai::find_by_root_key(v.entry->key))
        top_config(v.entry->value.get(), c->id, v.via_alias, 1);
    }
    if (budget_.exceeded_at())
      doc_.problems.push_back({*budget_.exceeded_at(),
                               "aliases and merge keys expand to more than " +
                                   std::to_string(kMaxAliasedEntries) +
                                   " entries: opscope reads no further (coreai-opt configs need "
                                   "a few; is an alias merged into itself many times?)",
                               "alias-expansion"});
  }

private:
  void field(const Entry& e, FieldLevel level, Compressor root, bool via_alias) {
    check_field(e, level, root, via_alias);
    if (!visit_)
      return;
    EntryRole role;
    role.kind = EntryRole::Kind::Field;
    role.level = level;
    role.root = root;
    role.via_alias = via_alias;
    visit_(e, role);
  }

  // Every field any compressor accepts at `level` (so a field of another compressor is
  // never called unknown), plus the root's own.
  void check_field(const Entry& e, FieldLevel level, Compressor root, bool via_alias) {
    if (via_alias || !e.has_colon || e.key.empty() || e.key.find('\x1f') != std::string::npos)
      return; // aliased: reported where written; no colon or the cursor marker: being typed
    if (level == FieldLevel::Document && doc_.root == Compressor::None) {
      // Not a coreai-opt config (yet): nothing to hold it to, unless a key is a root key
      // misremembered (`quantisation_config`, `palettization_config`): from_yaml would raise
      // "Did not find ..." on it, and nothing else would say so.
      if (std::vector<std::string> meant = root_keys_meant(e.key); !meant.empty())
        doc_.unknown_fields.push_back({e.key, e.key_range, "the top level", std::move(meant)});
      return;
    }
    auto known = [&](Compressor r) {
      const std::vector<std::string>& names = known_fields(level, r);
      return std::find(names.begin(), names.end(), e.key) != names.end();
    };
    if (level == FieldLevel::Document) {
      if (known(doc_.root))
        return;
    } else if (known(Compressor::None) ||
               std::any_of(coreai::compressors().begin(), coreai::compressors().end(),
                           [&](const coreai::CompressorInfo& c) { return known(c.id); })) {
      return;
    }
    static const char* const kWhere[] = {"the top level", "", "a module config", "an op config"};
    std::string where = level == FieldLevel::TopConfig ? std::string(coreai::find(root)->root_key)
                                                       : kWhere[static_cast<int>(level)];
    doc_.unknown_fields.push_back(
        {e.key, e.key_range, where,
         known_fields(level, level == FieldLevel::Document ? doc_.root : root)});
  }

  void pattern(const Entry& e, Table table, const Scope& scope, bool via_alias) {
    PatternKey key;
    key.table = table;
    key.scope = scope;
    key.text = e.key;
    key.range = e.key_range;
    key.quoted = e.quoted;
    key.quote = e.quote;
    key.byte_cols = e.key_cols;
    key.raw = e.raw;
    key.via_alias = via_alias;
    key.null_value = is_null(e.value.get());
    key.config_object = object_;
    doc_.keys.push_back(std::move(key));
    if (visit_) {
      EntryRole role;
      role.kind = EntryRole::Kind::PatternKey;
      role.table = table;
      role.scope = scope;
      role.via_alias = via_alias;
      visit_(e, role);
    }
  }

  void top_config(const Node* node, Compressor root, bool via_alias, int depth) {
    object_ = node ? std::max(0, node->config_object) : 0;
    if (static_cast<std::size_t>(object_) >= doc_.objects.size())
      doc_.objects.resize(static_cast<std::size_t>(object_) + 1);
    for (const VisibleEntry& v : entries_of(node, via_alias, depth, budget_)) {
      const Entry& e = *v.entry;
      field(e, FieldLevel::TopConfig, root, v.via_alias);
      if (e.key == "global_config") {
        if (!doc_.global_config_range) {
          doc_.global_config_range = e.key_range;
          doc_.global_config_null = is_null(e.value.get());
        }
        ConfigObject& object = doc_.objects[static_cast<std::size_t>(object_)];
        if (!object.global_config_range) {
          object.global_config_range = e.key_range;
          object.global_config_null = is_null(e.value.get());
        }
        module_config(e.value.get(), root, Scope{}, v.via_alias, depth + 1);
      } else if (e.key == kDetachedModuleConfig) {
        module_config(e.value.get(), root, Scope{}, v.via_alias, depth + 1);
      } else if (e.key == "module_type_configs" || e.key == "module_name_configs") {
        bool by_type = e.key == "module_type_configs";
        bool aliased = v.via_alias;
        for (const VisibleEntry& k : entries_of(e.value.get(), aliased, depth + 1, budget_)) {
          Scope scope;
          scope.kind = by_type ? Scope::Kind::ModuleType : Scope::Kind::ModuleName;
          scope.key = k.entry->key;
          scope.key_range = k.entry->key_range;
          pattern(*k.entry, by_type ? Table::ModuleType : Table::ModuleName, Scope{}, k.via_alias);
          module_config(k.entry->value.get(), root, scope, k.via_alias, depth + 2);
        }
      } else if (e.key == "execution_mode" && e.value && e.value->kind == Node::Kind::Scalar &&
                 !doc_.execution_mode) {
        doc_.execution_mode = e.value->scalar;
        doc_.execution_mode_range = e.value->range;
      }
    }
  }

  void module_config(const Node* node, Compressor root, const Scope& scope, bool via_alias,
                     int depth) {
    for (const VisibleEntry& v : entries_of(node, via_alias, depth, budget_)) {
      const Entry& e = *v.entry;
      field(e, FieldLevel::ModuleConfig, root, v.via_alias);
      if (e.key == "op_name_config" || e.key == "op_type_config") {
        Table table = e.key == "op_name_config" ? Table::OpName : Table::OpType;
        bool aliased = v.via_alias;
        for (const VisibleEntry& k : entries_of(e.value.get(), aliased, depth + 1, budget_)) {
          pattern(*k.entry, table, scope, k.via_alias);
          op_config(k.entry->value.get(), root, k.via_alias, depth + 2);
        }
      }
    }
  }

  void op_config(const Node* node, Compressor root, bool via_alias, int depth) {
    for (const VisibleEntry& v : entries_of(node, via_alias, depth, budget_))
      field(*v.entry, FieldLevel::OpConfig, root, v.via_alias);
  }

  ConfigDocument& doc_;
  const EntryVisitor& visit_;
  AliasBudget budget_;
  int object_ = 0; // the config object of the top config being read
};

} // namespace

void classify(const Node& root, ConfigDocument& document, const EntryVisitor& visit) {
  Classifier(document, visit, count_entries(root)).document(root);
}

void find_duplicates(const Node& node, std::vector<DuplicateKey>& out) {
  if (node.kind == Node::Kind::Map) {
    auto merge = [](const Entry& e) { return e.key == "<<" && !e.quoted; };
    // Most mappings hold a few fields (50,000 of them under a 50,000-key table): compared
    // pairwise, as a hash table each cost a quarter of reading the document.
    constexpr std::size_t kPairwise = 8;
    if (node.entries.size() <= kPairwise) {
      for (std::size_t i = 0; i < node.entries.size(); ++i) {
        const Entry& e = node.entries[i];
        if (merge(e))
          continue;
        for (std::size_t j = 0; j < i; ++j)
          if (!merge(node.entries[j]) && node.entries[j].key == e.key) {
            out.push_back({e.key, node.entries[j].key_range, e.key_range});
            break;
          }
      }
    } else {
      // Views into the tree: a 50,000-key table is read on every keystroke.
      std::unordered_map<std::string_view, const Entry*> seen;
      seen.reserve(node.entries.size());
      for (const Entry& e : node.entries) {
        if (merge(e))
          continue;
        auto [it, inserted] = seen.emplace(e.key, &e);
        if (!inserted)
          out.push_back({e.key, it->second->key_range, e.key_range});
      }
    }
    for (const Entry& e : node.entries)
      if (e.value)
        find_duplicates(*e.value, out);
  } else if (node.kind == Node::Kind::Seq) {
    for (const auto& item : node.items)
      find_duplicates(*item, out);
  }
}

} // namespace opscope::config::detail
