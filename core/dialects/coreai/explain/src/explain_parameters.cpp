#include "explain_parameters.h"

#include "opscope/coreai/config/values.h"
#include "opscope/resolve/eager_weights.h"
#include "opscope/resolve/pruner.h"
#include "opscope/resolve/size.h"

#include <algorithm>
#include <array>
#include <iostream>
#include <string>
#include <vector>

namespace opscope::coreai_explain {
namespace {

using json = nlohmann::ordered_json;

json entry_of(const config::ConfigDocument& doc, const resolve::Decider& decider) {
  if (decider.kind == resolve::Decider::Kind::DefaultGlobal)
    return nullptr;
  return {{"path", resolve::decider_path(doc, decider)},
          {"line", resolve::decider_line(doc, decider) + 1}};
}

std::vector<resolve::WeightDecision> reached(const config::ConfigDocument& document,
                                             const index::Index& index) {
  auto values = config::read_values(document);
  if (!values)
    throw std::runtime_error("the config's values cannot be read (no mapping at its root, or "
                             "more than a million values after aliases)");
  std::vector<resolve::WeightDecision> out;
  for (resolve::WeightDecision& w :
       resolve::resolve_eager_weights(document, *values, index).parameters)
    if (!w.spec_table.empty())
      out.push_back(std::move(w));
  return out;
}

std::string module_name(const index::Index& index, int module) {
  return module < 0 ? std::string() : index.modules[static_cast<std::size_t>(module)].name;
}

bool pruning(const config::ConfigDocument& document) {
  return document.root == config::Compressor::MagnitudePruner;
}

json shown_spec(const config::ConfigDocument& document, const json& spec) {
  return pruning(document) ? resolve::filled_pruning_spec(spec) : spec;
}

} // namespace

std::string spec_words(config::Compressor compressor, const json& spec) {
  if (!spec.is_object())
    return compressor == config::Compressor::MagnitudePruner ? "dense" : "full precision";
  switch (compressor) {
  case config::Compressor::MagnitudePruner: {
    const json& scheme = spec["pruning_scheme"];
    return spec["target_sparsity"].dump() + " " +
           (scheme.is_object() ? scheme.value("type", std::string("?")) : scheme.dump());
  }
  case config::Compressor::KMeansPalettizer:
    return std::to_string(spec.value("n_bits", 4)) + " bits";
  default: {
    std::string granularity = "per_tensor";
    if (spec.contains("granularity") && spec["granularity"].is_object())
      granularity = spec["granularity"].value("type", granularity);
    else if (spec.contains("granularity") && spec["granularity"].is_string())
      granularity = spec["granularity"].get<std::string>();
    return spec.value("dtype", std::string("int8")) + " " + granularity;
  }
  }
}

namespace {

std::string names_of(const index::Parameter& p) {
  std::string names = p.name;
  for (const std::string& alias : p.aliases)
    names += " = " + alias;
  return names;
}

} // namespace

std::string entry_text(const config::ConfigDocument& doc, const resolve::Decider& decider) {
  if (decider.kind == resolve::Decider::Kind::DefaultGlobal)
    return "(default global_config)";
  std::vector<std::string> path = resolve::decider_path(doc, decider);
  std::string text;
  for (std::size_t i = 1; i < path.size(); ++i) // the root key is the same for every row
    text += (i > 1 ? " > " : "") + path[i];
  return text + "  :" + std::to_string(resolve::decider_line(doc, decider) + 1);
}

json eager_parameters_json(const config::ConfigDocument& document, const index::Index& index) {
  json out = json::array();
  for (const resolve::WeightDecision& w : reached(document, index)) {
    const index::Parameter& p = index.parameters[static_cast<std::size_t>(w.parameter)];
    json names = json::array({p.name});
    for (const std::string& alias : p.aliases)
      names.push_back(alias);
    json row = {{"parameter", p.name},
                {"names", names},
                {"module", module_name(index, w.module)},
                {"entry", entry_of(document, w.decider)},
                {"spec_table", w.spec_table},
                {"spec_key", w.spec_key},
                {"spec", shown_spec(document, w.spec)}};
    if (std::string why; !resolve::spec_fits(index, w, document.root, why)) {
      row["spec"] = nullptr; // prepare() disables the compressor: full precision
      row["not_applied"] = why;
    }
    if (w.shared()) {
      json readers = json::array();
      for (const resolve::WeightDecision::Reader& r : w.readers)
        readers.push_back({{"op", index.ops[static_cast<std::size_t>(r.op)].name},
                           {"module", module_name(index, r.module)},
                           {"entry", entry_of(document, r.decider)}});
      row["read_by"] = readers;
    }
    out.push_back(std::move(row));
  }
  return out;
}

void print_eager_parameters(const config::ConfigDocument& document, const index::Index& index,
                            const Paint& paint, std::ostream& out) {
  const std::vector<resolve::WeightDecision> weights = reached(document, index);
  std::vector<std::array<std::string, 3>> rows;
  std::size_t uncompressed = 0;
  for (const resolve::WeightDecision& w : weights) {
    json spec = shown_spec(document, w.spec);
    std::string why;
    if (!resolve::spec_fits(index, w, document.root, why))
      spec = nullptr; // prepare() disables the compressor: full precision
    uncompressed += spec.is_object() ? 0 : 1;
    rows.push_back(
        {index.parameters[static_cast<std::size_t>(w.parameter)].name,
         spec_words(document.root, spec) + (why.empty() ? "" : " (its spec does not fit)"),
         entry_text(document, w.decider) + "  [" + w.spec_table + " " + w.spec_key + "]"});
  }
  std::size_t w0 = 9, w1 = 8;
  for (const auto& r : rows) {
    w0 = std::max(w0, r[0].size());
    w1 = std::max(w1, r[1].size());
  }
  auto pad = [](const std::string& s, std::size_t w) { return s + std::string(w - s.size(), ' '); };
  out << "\n"
      << paint(kBold, pad("parameter", w0) + "  " +
                          pad(pruning(document) ? "sparsity" : "spec", w1) + "  deciding entry")
      << "\n";
  for (const auto& r : rows) {
    const bool kept = r[1].rfind("full precision", 0) == 0 || r[1].rfind("dense", 0) == 0;
    out << pad(r[0], w0) << "  " << padded(kept ? paint(kYellow, r[1]) : r[1], r[1].size(), w1)
        << "  " << paint(kGreen, r[2]) << "\n";
  }
  out << rows.size() << " parameters reached, " << uncompressed
      << (pruning(document) ? " left dense\n" : " left in full precision\n");

  for (const resolve::WeightDecision& w : weights) {
    if (!w.shared())
      continue;
    const index::Parameter& p = index.parameters[static_cast<std::size_t>(w.parameter)];
    out << "tied: " << names_of(p) << " is one tensor read by ";
    for (std::size_t i = 0; i < w.readers.size(); ++i)
      out << (i ? ", " : "") << index.ops[static_cast<std::size_t>(w.readers[i].op)].name << " ("
          << entry_text(document, w.readers[i].decider) << ")";
    out << "; it gets " << spec_words(document.root, shown_spec(document, w.spec)) << " from "
        << entry_text(document, w.decider)
        << (w.spec_table == "module_state_spec"
                ? " (a module_state_spec of an owner beats every op_state_spec)"
                : " (the reader of highest priority: name entries, then type entries, "
                  "then global, each in the order coreai-opt claims modules)")
        << ", once: one compressor for every name";
    if (!pruning(document))
      out << ", counted once by bits_per_weight (under " << index::owner_module_name(p.name) << ")";
    out << "\n";
  }
}

} // namespace opscope::coreai_explain
