#include "opscope/features/completion.h"

#include "matching.h"
#include "text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string_view>

namespace opscope::features {
namespace {

using config::CursorContext;
using config::Table;

// One name that could be offered. Only the few kept after narrowing are
// rendered (escaped key, detail text): a model has thousands of names.
struct Candidate {
  CompletionItem::Kind kind;
  std::string_view name; // the plain name; points into the index, `Names` or the context
  int index = -1;        // module or op index, for Module and Op candidates
  int count = 0;         // how many modules or ops have this type, for type candidates
};

// Lower-cases ASCII (names are ASCII in practice; other bytes compare as they are).
char lower_char(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = lower_char(c);
  return out;
}

// Whether `name` contains `lowered` (already lower-case) at `at`, ignoring case.
bool matches_at(std::string_view name, std::size_t at, std::string_view lowered) {
  for (std::size_t i = 0; i < lowered.size(); ++i)
    if (lower_char(name[at + i]) != lowered[i])
      return false;
  return true;
}

bool starts_with_ignoring_case(std::string_view name, std::string_view lowered) {
  return name.size() >= lowered.size() && matches_at(name, 0, lowered);
}

bool contains_ignoring_case(std::string_view name, std::string_view lowered) {
  for (std::size_t at = 0; at + lowered.size() <= name.size(); ++at)
    if (matches_at(name, at, lowered))
      return true;
  return false;
}

// What the user typed, as a name: regex escapes removed (`layer1\.0` -> `layer1.0`).
std::string typed_name(const std::string& typed, bool regex) {
  if (!regex)
    return typed;
  std::string out;
  for (std::size_t i = 0; i < typed.size(); ++i) {
    if (typed[i] == '\\' && i + 1 < typed.size())
      ++i;
    out += typed[i];
  }
  return out;
}

// Type names counted in model order; candidates point into `order`.
struct TypeCounts {
  std::vector<std::string> order;
  std::map<std::string, int> counts;
  void add(const std::string& type) {
    if (counts[type]++ == 0)
      order.push_back(type);
  }
};

void pattern_candidates(const CursorContext& ctx, const Model& model, TypeCounts& types,
                        std::vector<Candidate>& out) {
  const index::Index& index = *model.index;
  switch (ctx.table) {
  case Table::ModuleName:
    out.reserve(index.modules.size());
    for (std::size_t i = 0; i < index.modules.size(); ++i)
      if (!index.modules[i].name.empty())
        out.push_back({CompletionItem::Kind::Module, index.modules[i].name, static_cast<int>(i)});
    return;
  case Table::ModuleType:
    for (const index::Module& m : index.modules)
      types.add(m.type);
    for (const std::string& type : types.order)
      out.push_back({CompletionItem::Kind::ModuleType, type, -1, types.counts[type]});
    return;
  case Table::OpName: {
    std::vector<int> ops = detail::compressible(
        index, detail::ops_in_scope(*detail::ModelQueries(model), ctx.scope), model.compressor);
    out.reserve(ops.size());
    for (int i : ops)
      out.push_back({CompletionItem::Kind::Op, index.ops[static_cast<std::size_t>(i)].name, i});
    return;
  }
  case Table::OpType:
    for (int i :
         detail::compressible(index, detail::ops_in_scope(*detail::ModelQueries(model), ctx.scope),
                              model.compressor)) {
      const std::string& type =
          index.type_for(index.ops[static_cast<std::size_t>(i)], model.compressor);
      if (!type.empty())
        types.add(type);
    }
    for (const std::string& type : types.order)
      out.push_back({CompletionItem::Kind::OpType, type, -1, types.counts[type]});
    return;
  }
}

// The key to write (regex-escaped for regex tables) and the detail shown next to the name.
void render(const Candidate& c, const Model* model, std::string& key, std::string& detail) {
  using K = CompletionItem::Kind;
  switch (c.kind) {
  case K::Module:
    key = detail::escape_regex(std::string(c.name));
    detail = model->index->modules[static_cast<std::size_t>(c.index)].type;
    return;
  case K::Op: {
    const index::Op& op = model->index->ops[static_cast<std::size_t>(c.index)];
    key = detail::escape_regex(op.name);
    std::string where = op.module_stack.empty() ? "" : op.module_stack.back().name;
    detail = model->index->type_for(op, model->compressor) + (where.empty() ? "" : " in " + where);
    return;
  }
  case K::ModuleType:
    key = c.name;
    detail = std::to_string(c.count) + (c.count == 1 ? " module" : " modules");
    return;
  case K::OpType:
    key = c.name;
    detail = std::to_string(c.count) + (c.count == 1 ? " op" : " ops");
    return;
  case K::Field:
  case K::Value:
    key = c.name;
    detail.clear();
    return;
  }
}

// "000042": keeps the server's order in clients that sort by sortText. snprintf was a tenth
// of a completion request.
std::string sort_key(std::size_t position) {
  std::string key(6, '0');
  for (auto digit = key.rbegin(); digit != key.rend() && position > 0; ++digit, position /= 10)
    *digit = static_cast<char>('0' + position % 10);
  return position == 0 ? key : std::to_string(position) + key;
}

} // namespace

CompletionList complete(const config::ConfigDocument& document, config::Position cursor,
                        const Model* model, const CompletionOptions& options) {
  CompletionList list;
  CursorContext ctx = config::context_at(document, cursor);
  std::vector<Candidate> candidates;
  TypeCounts types;
  bool regex = false;
  switch (ctx.kind) {
  case CursorContext::Kind::None:
    return list;
  case CursorContext::Kind::FieldName:
    for (const std::string& f : ctx.fields)
      candidates.push_back({CompletionItem::Kind::Field, f});
    break;
  case CursorContext::Kind::FieldValue:
    for (const std::string& v : ctx.values)
      candidates.push_back({CompletionItem::Kind::Value, v});
    break;
  case CursorContext::Kind::PatternKey:
    if (!model || !model->index) {
      list.is_incomplete = true; // the model is still loading: ask again later
      return list;
    }
    regex = ctx.table == Table::ModuleName || ctx.table == Table::OpName;
    pattern_candidates(ctx, *model, types, candidates);
    break;
  }

  // Narrow big lists here, so the cap keeps what the user is typing towards.
  std::string typed = lower(typed_name(ctx.typed, regex));
  if (!typed.empty() && candidates.size() > options.max_items) {
    std::stable_partition(candidates.begin(), candidates.end(), [&](const Candidate& c) {
      return starts_with_ignoring_case(c.name, typed);
    });
    auto end = std::remove_if(candidates.begin(), candidates.end(), [&](const Candidate& c) {
      return !contains_ignoring_case(c.name, typed);
    });
    candidates.erase(end, candidates.end());
  }
  if (candidates.size() > options.max_items) {
    candidates.resize(options.max_items);
    list.is_incomplete = true;
  }
  std::string quote = ctx.quote ? std::string(1, ctx.quote) : "";
  std::string key;
  list.items.reserve(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    CompletionItem item;
    item.kind = c.kind;
    item.label = c.name;
    render(c, model, key, item.detail);
    item.sort_text = sort_key(i);
    item.edit.range = ctx.replace;
    // Keys and values are written the same way: in the quote opened, JSON-quoted, or plain.
    item.edit.new_text = detail::render_key(key, ctx.format, ctx.quote, ctx.raw);
    // The editor filters on the text typed so far, which is written the same way (a regex
    // escape typed by hand: `r"layer1\.`); the plain name typed (`layer1.`) is a subsequence
    // of it, which the editors' fuzzy matching finds too.
    item.filter_text = item.edit.new_text;
    if (!quote.empty() && item.filter_text.size() > 1 && item.filter_text.back() == quote[0])
      item.filter_text.pop_back();
    list.items.push_back(std::move(item));
  }
  return list;
}

} // namespace opscope::features
