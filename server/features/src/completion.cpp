#include "opscope/features/completion.h"

#include "matching.h"
#include "text.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace opscope::features {
namespace {

using config::CursorContext;
using config::Table;

struct Candidate {
  CompletionItem::Kind kind;
  std::string name; // the plain name
  std::string key;  // the key value to write (regex-escaped for regex tables)
  std::string detail;
};

std::string lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
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

std::vector<Candidate> pattern_candidates(const CursorContext& ctx, const Model& model) {
  const index::Index& index = *model.index;
  std::vector<Candidate> out;
  switch (ctx.table) {
  case Table::ModuleName:
    for (const index::Module& m : index.modules)
      if (!m.name.empty())
        out.push_back({CompletionItem::Kind::Module, m.name, detail::escape_regex(m.name), m.type});
    break;
  case Table::ModuleType: {
    std::map<std::string, int> counts;
    std::vector<std::string> order;
    for (const index::Module& m : index.modules)
      if (counts[m.type]++ == 0)
        order.push_back(m.type);
    for (const std::string& type : order) {
      int n = counts[type];
      out.push_back({CompletionItem::Kind::ModuleType, type, type,
                     std::to_string(n) + (n == 1 ? " module" : " modules")});
    }
    break;
  }
  case Table::OpName:
    for (int i :
         detail::compressible(index, detail::ops_in_scope(index, ctx.scope), model.compressor)) {
      const index::Op& op = index.ops[static_cast<std::size_t>(i)];
      std::string where = op.module_stack.empty() ? "" : op.module_stack.back().name;
      out.push_back({CompletionItem::Kind::Op, op.name, detail::escape_regex(op.name),
                     index.type_for(op, model.compressor) + (where.empty() ? "" : " in " + where)});
    }
    break;
  case Table::OpType: {
    std::map<std::string, int> counts;
    std::vector<std::string> order;
    for (int i :
         detail::compressible(index, detail::ops_in_scope(index, ctx.scope), model.compressor)) {
      const std::string& type =
          index.type_for(index.ops[static_cast<std::size_t>(i)], model.compressor);
      if (!type.empty() && counts[type]++ == 0)
        order.push_back(type);
    }
    for (const std::string& type : order) {
      int n = counts[type];
      out.push_back({CompletionItem::Kind::OpType, type, type,
                     std::to_string(n) + (n == 1 ? " op" : " ops")});
    }
    break;
  }
  }
  return out;
}

} // namespace

CompletionList complete(const config::ConfigDocument& document, config::Position cursor,
                        const Model* model, const CompletionOptions& options) {
  CompletionList list;
  CursorContext ctx = config::context_at(document, cursor);
  std::vector<Candidate> candidates;
  bool regex = false;
  switch (ctx.kind) {
  case CursorContext::Kind::None:
    return list;
  case CursorContext::Kind::FieldName:
    for (const std::string& f : ctx.fields)
      candidates.push_back({CompletionItem::Kind::Field, f, f, ""});
    break;
  case CursorContext::Kind::FieldValue:
    for (const std::string& v : ctx.values)
      candidates.push_back({CompletionItem::Kind::Value, v, v, ""});
    break;
  case CursorContext::Kind::PatternKey:
    if (!model || !model->index) {
      list.is_incomplete = true; // the model is still loading: ask again later
      return list;
    }
    regex = ctx.table == Table::ModuleName || ctx.table == Table::OpName;
    candidates = pattern_candidates(ctx, *model);
    break;
  }

  // Narrow big lists here, so the cap keeps what the user is typing towards.
  std::string typed = lower(typed_name(ctx.typed, regex));
  if (!typed.empty() && candidates.size() > options.max_items) {
    std::stable_partition(candidates.begin(), candidates.end(),
                          [&](const Candidate& c) { return lower(c.name).rfind(typed, 0) == 0; });
    auto end = std::remove_if(candidates.begin(), candidates.end(), [&](const Candidate& c) {
      return lower(c.name).find(typed) == std::string::npos;
    });
    candidates.erase(end, candidates.end());
  }
  if (candidates.size() > options.max_items) {
    candidates.resize(options.max_items);
    list.is_incomplete = true;
  }
  std::string quote = ctx.quote ? std::string(1, ctx.quote) : "";
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    CompletionItem item;
    item.kind = c.kind;
    item.label = c.name;
    item.filter_text = quote + c.name;
    item.detail = c.detail;
    char sort[24];
    std::snprintf(sort, sizeof sort, "%06zu", i);
    item.sort_text = sort;
    item.edit.range = ctx.replace;
    // Keys and values are written the same way: in the quote opened, JSON-quoted, or plain.
    item.edit.new_text = detail::render_key(c.key, ctx.format, ctx.quote);
    list.items.push_back(std::move(item));
  }
  return list;
}

} // namespace opscope::features
