#include "explain_html.h"

#include "explain_parameters.h"

#include "opscope/coreai/compressors.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace opscope::coreai_explain {

// resources/explain_treemap.html, embedded at build time (CMakeLists.txt).
extern const char* const kTreemapPage;

namespace {

using json = nlohmann::ordered_json; // the page's data
using Explain = nlohmann::json;      // explain's, read (sorted keys: no quadratic parse)

constexpr std::size_t kMaxEntriesPerRectangle = 8;
constexpr std::size_t kMaxTensorsPerModule = 16;
constexpr std::string_view kDataMarker = "/*OPSCOPE_TREEMAP_DATA*/";

std::string last_part(const std::string& dotted) {
  const std::size_t dot = dotted.rfind('.');
  return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

std::string owner_of(const std::string& tensor) {
  const std::size_t dot = tensor.rfind('.');
  return dot == std::string::npos ? std::string() : tensor.substr(0, dot);
}

// The deciding entries, each written once: "module_name_configs > layer1\..*" and its line,
// as explain's table names them (below the root key every entry shares).
class Entries {
public:
  int operator()(const Explain& entry) {
    const std::string key = entry.dump();
    auto [it, added] = index_.try_emplace(key, static_cast<int>(table_.size()));
    if (added) {
      if (entry.is_null()) {
        table_.push_back({{"text", "(default global_config)"}, {"line", nullptr}});
      } else {
        std::string text;
        const Explain& path = entry.at("path");
        for (std::size_t i = path.size() > 1 ? 1 : 0; i < path.size(); ++i)
          text += (text.empty() ? "" : " > ") + path[i].get<std::string>();
        table_.push_back({{"text", text}, {"line", entry.value("line", 0)}});
      }
    }
    return it->second;
  }
  json take() { return std::move(table_); }

private:
  std::unordered_map<std::string, int> index_;
  json table_ = json::array();
};

// weight_error's quantization in words: "int8 symmetric, blocks of 1x16x3x3".
std::string quantization_words(const Explain& row) {
  std::string words = row.value("dtype", std::string("?")) + " " + row.value("qscheme", "");
  if (const auto block = row.find("block_size"); block != row.end() && block->is_array()) {
    words += ", blocks of ";
    for (std::size_t i = 0; i < block->size(); ++i)
      words += (i ? "x" : "") + (*block)[i].dump();
  }
  if (const auto bn = row.find("folded_with"); bn != row.end() && bn->is_string())
    words += ", folded with " + bn->get<std::string>();
  return words;
}

struct Tensor {
  std::string name;
  std::string spec;   // empty: unknown here
  json sqnr = json(); // null: no error; discarded when `measured` is false
  bool measured = false;
};

struct Row {
  std::string name;
  std::int64_t weights = 0, before = 0, after = 0;
  std::string type;
  int entry = -1;
  bool inherited = false, fp = false;
  std::vector<Tensor> tensors;
  // Aggregated rows: how many modules, which entries decide how many of them.
  std::size_t modules = 1;
  std::map<int, std::size_t> entries;
  // SQNR: the worst measured weight (none: no error), or not measured at all.
  bool sqnr_known = false;
  std::optional<double> sqnr;
  std::string worst;
};

void merge_sqnr(Row& into, const Row& from) {
  if (!from.sqnr_known)
    return;
  if (!into.sqnr_known || (from.sqnr && (!into.sqnr || *from.sqnr < *into.sqnr))) {
    into.sqnr = from.sqnr;
    into.worst = from.worst.empty() ? from.name : from.worst;
  }
  into.sqnr_known = true;
}

// The module tree by dotted name; a node with rows below it more than the page can draw is
// collapsed into one aggregated row, deepest groups first, the largest of a depth first.
struct Node {
  std::string name;
  int depth = 0;
  std::optional<Row> row; // a leaf (or a module owning tensors and having children)
  std::map<std::string, std::unique_ptr<Node>> children;
};

std::size_t rectangles(const Node& node) {
  std::size_t n = node.row ? 1 : 0;
  for (const auto& [_, child] : node.children)
    n += rectangles(*child);
  return n;
}

void gather(Node& node, std::vector<Row>& rows) {
  if (node.row)
    rows.push_back(std::move(*node.row));
  for (auto& [_, child] : node.children)
    gather(*child, rows);
}

void collapse(Node& node) {
  std::vector<Row> rows;
  gather(node, rows);
  node.children.clear();
  Row all;
  all.name = node.name;
  all.modules = 0;
  for (const Row& r : rows) {
    all.weights += r.weights;
    all.before += r.before;
    all.after += r.after;
    all.modules += r.modules;
    if (r.modules == 1 && r.entries.empty())
      all.entries[r.entry] += 1;
    for (const auto& [e, n] : r.entries)
      all.entries[e] += n;
    merge_sqnr(all, r);
  }
  node.row = std::move(all);
}

void internal_nodes(Node& node, std::vector<Node*>& out) {
  if (node.children.empty())
    return;
  out.push_back(&node);
  for (auto& [_, child] : node.children)
    internal_nodes(*child, out);
}

void bound(Node& root, std::size_t max_rectangles) {
  std::size_t total = rectangles(root);
  if (total <= max_rectangles)
    return;
  std::vector<Node*> nodes;
  internal_nodes(root, nodes);
  // Deepest first; within a depth the ones drawing the most rectangles first.
  std::vector<std::pair<Node*, std::size_t>> order;
  for (Node* n : nodes)
    order.emplace_back(n, rectangles(*n));
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.first->depth != b.first->depth ? a.first->depth > b.first->depth : a.second > b.second;
  });
  for (auto& [node, _] : order) {
    if (total <= max_rectangles)
      break;
    const std::size_t now = rectangles(*node); // less once its descendants were collapsed
    collapse(*node);
    total -= now - 1;
  }
}

json row_json(const Row& r) {
  json out = {{"name", r.name}, {"weights", r.weights}, {"before", r.before}, {"after", r.after}};
  if (r.modules > 1 || !r.entries.empty()) {
    out["modules"] = r.modules;
    std::vector<std::pair<int, std::size_t>> entries(r.entries.begin(), r.entries.end());
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    json list = json::array();
    std::size_t others = 0;
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (i < kMaxEntriesPerRectangle)
        list.push_back({entries[i].first < 0 ? json() : json(entries[i].first), entries[i].second});
      else
        others += entries[i].second;
    out["entries"] = std::move(list);
    if (others)
      out["other_entries"] = others;
  } else {
    if (!r.type.empty())
      out["type"] = r.type;
    out["entry"] = r.entry < 0 ? json() : json(r.entry);
    if (r.inherited)
      out["inherited"] = true;
    if (r.fp)
      out["fp"] = true;
    if (!r.tensors.empty()) {
      json tensors = json::array();
      for (std::size_t i = 0; i < r.tensors.size() && i < kMaxTensorsPerModule; ++i) {
        const Tensor& t = r.tensors[i];
        json tj = {{"name", t.name}};
        if (!t.spec.empty())
          tj["spec"] = t.spec;
        if (t.measured)
          tj["sqnr"] = t.sqnr;
        tensors.push_back(std::move(tj));
      }
      out["tensors"] = std::move(tensors);
      if (r.tensors.size() > kMaxTensorsPerModule)
        out["other_tensors"] = r.tensors.size() - kMaxTensorsPerModule;
    }
  }
  if (r.sqnr_known) {
    out["sqnr"] = r.sqnr ? json(*r.sqnr) : json();
    if (!r.worst.empty() && r.modules > 1)
      out["worst"] = r.worst;
  }
  return out;
}

} // namespace

json treemap_data(const nlohmann::json& explain, const PageSource& source,
                  std::size_t max_rectangles) {
  const Explain& size = explain.at("size");
  if (size.contains("unavailable"))
    throw std::runtime_error(source.config +
                             ": no treemap: its areas are the projected size, not computed "
                             "here: " +
                             size["unavailable"].get<std::string>());
  Entries entries;

  // Who decides a module: its row in `modules` (coreai-opt's module resolution), by its name
  // and by the canonical name a module called under an alias has.
  std::unordered_map<std::string, const Explain*> module_rows;
  for (const Explain& m : explain.at("modules")) {
    module_rows.emplace(m.at("module").get<std::string>(), &m);
    if (m.contains("canonical"))
      module_rows.emplace(m["canonical"].get<std::string>(), &m);
  }
  // Eager mode: each parameter's own spec and entry, grouped by the module owning it.
  std::unordered_map<std::string, std::vector<const Explain*>> eager;
  if (const auto parameters = explain.find("parameters"); parameters != explain.end())
    for (const Explain& p : *parameters)
      eager[owner_of(p.at("parameter").get<std::string>())].push_back(&p);
  // The weight error, where measured.
  json weight_error;
  std::unordered_map<std::string, std::vector<const Explain*>> measured;
  if (const auto we = explain.find("weight_error"); we != explain.end()) {
    if (we->contains("unavailable")) {
      weight_error = (*we)["unavailable"];
    } else {
      weight_error = "measured";
      for (const Explain& p : we->at("parameters"))
        measured[owner_of(p.at("parameter").get<std::string>())].push_back(&p);
    }
  }

  Node root;
  std::size_t module_count = 0;
  for (const auto& [name, bits] : size.at("module_bits").items()) {
    Row row;
    row.name = name;
    row.weights = bits.at("weights").get<std::int64_t>();
    row.before = bits.at("before").get<std::int64_t>();
    row.after = bits.at("after").get<std::int64_t>();
    if (const auto m = module_rows.find(name); m != module_rows.end()) {
      const Explain& mj = *m->second;
      row.type = last_part(mj.at("module_type").get<std::string>());
      row.entry = entries(mj.at("entry"));
      row.inherited = !mj.value("direct", true);
      row.fp = mj.value("full_precision", false);
    }
    if (const auto e = eager.find(name); e != eager.end()) {
      // The entry of the first weight it compresses decides the module (else the first's).
      const Explain* decider = e->second.front();
      for (const Explain* p : e->second)
        if (p->at("spec").is_object()) {
          decider = p;
          break;
        }
      row.entry = entries(decider->at("entry"));
      row.inherited = false;
      row.fp = !decider->at("spec").is_object();
      for (const Explain* p : e->second)
        row.tensors.push_back({last_part(p->at("parameter").get<std::string>()),
                               spec_words(source.compressor, json(p->at("spec")))});
    }
    if (weight_error == "measured") {
      row.sqnr_known = true; // none quantized: no error
      if (const auto w = measured.find(name); w != measured.end())
        for (const Explain* p : w->second) {
          const std::string tensor = last_part(p->at("parameter").get<std::string>());
          auto t = std::find_if(row.tensors.begin(), row.tensors.end(),
                                [&](const Tensor& x) { return x.name == tensor; });
          if (t == row.tensors.end())
            t = row.tensors.insert(row.tensors.end(), Tensor{tensor, ""});
          if (p->contains("not_measured")) {
            row.sqnr_known = false; // one unknown weight: the module's worst is unknown
            continue;
          }
          t->spec = quantization_words(*p);
          t->measured = true;
          t->sqnr = p->at("sqnr_db");
          if (t->sqnr.is_number() && (!row.sqnr || t->sqnr.get<double>() < *row.sqnr))
            row.sqnr = t->sqnr.get<double>();
        }
    }
    // Into the tree: one node per dotted prefix.
    Node* node = &root;
    std::size_t start = 0;
    while (!name.empty() && start <= name.size()) {
      const std::size_t dot = std::min(name.find('.', start), name.size());
      const std::string prefix = name.substr(0, dot);
      auto& child = node->children[name.substr(start, dot - start)];
      if (!child) {
        child = std::make_unique<Node>();
        child->name = prefix;
        child->depth = node->depth + 1;
      }
      node = child.get();
      start = dot + 1;
    }
    node->row = std::move(row);
    ++module_count;
  }
  bound(root, max_rectangles);
  std::vector<Row> rows;
  gather(root, rows);
  json modules = json::array();
  for (const Row& r : rows)
    modules.push_back(row_json(r));

  const coreai::CompressorInfo* compressor = coreai::find(source.compressor);
  json data = {{"config", source.config},
               {"model", source.model},
               {"compressor", compressor ? std::string(compressor->class_name) : std::string("?")},
               {"mode", source.mode},
               {"root_label", source.root.empty() ? std::string("(the model)")
                                                  : "(the model: " + last_part(source.root) + ")"},
               {"bits_per_weight", size.at("bits_per_weight")},
               {"bits", size.at("bits")},
               {"weights", size.at("weights")},
               {"weight_error", weight_error},
               {"module_count", module_count},
               {"max_rectangles", max_rectangles},
               {"aggregated", rows.size() < module_count ? json(rows.size()) : json()},
               {"entries", entries.take()},
               {"modules", std::move(modules)}};
  return data;
}

std::string treemap_page(const json& data) {
  // Inside <script type="application/json"> only "</script" or "<!--" could end it early; no
  // '<' is left to start either ("\u003c" is the same character to JSON.parse).
  std::string text = data.dump();
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text)
    if (c == '<')
      escaped += "\\u003c";
    else
      escaped += c;
  const std::string_view page(kTreemapPage);
  const std::size_t at = page.find(kDataMarker);
  if (at == std::string_view::npos)
    throw std::logic_error("the embedded treemap page has no data marker");
  std::string out;
  out.reserve(page.size() + escaped.size());
  out.append(page.substr(0, at));
  out.append(escaped);
  out.append(page.substr(at + kDataMarker.size()));
  return out;
}

} // namespace opscope::coreai_explain
