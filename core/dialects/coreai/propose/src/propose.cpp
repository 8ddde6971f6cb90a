#include "opscope/propose/propose.h"

#include "opscope/coreai/config/values.h"
#include "opscope/propose/config_edit.h"
#include "opscope/resolve/resolve.h"
#include "opscope/resolve/size.h"
#include "opscope/resolve/weight_error.h"

#include <cmath>
#include <cstdio>
#include <future>
#include <map>
#include <sstream>

namespace opscope::propose {
namespace {

using json = nlohmann::ordered_json;

std::vector<Candidates::Unit> weights_to_choose(const index::Index& index) {
  std::vector<Candidates::Unit> units;
  for (std::size_t p = 0; p < index.parameters.size(); ++p) {
    const index::Parameter& w = index.parameters[p];
    const bool floating = w.dtype == "float32" || w.dtype == "float16" || w.dtype == "bfloat16";
    if (w.buffer || !floating || w.shape.size() < 2)
      continue;
    Candidates::Unit u{static_cast<int>(p), {}, true};
    bool owned = true;
    std::vector<std::string> names = {w.name};
    names.insert(names.end(), w.aliases.begin(), w.aliases.end());
    for (const std::string& name : names) {
      const std::string owner = index::owner_module_name(name);
      if (name.size() < 7 || name.compare(name.size() - 7, 7, ".weight") != 0 || owner.empty() ||
          !index.find_module(owner)) {
        owned = false;
        break;
      }
      u.owners.push_back(owner);
    }
    if (owned)
      units.push_back(std::move(u));
  }
  return units;
}

// The module config an entry for `module` starts from: what decides it today (its specs,
// so activations stay as they were), without the op tables and module_state_spec that
// would override the weight's spec; the default global config's defaults ({}) when nothing
// is written; only the weight when the deciding entry is null.
json base_entry(const config::ConfigDocument& doc, const json& values, const index::Index& index,
                const resolve::Resolution& resolution, const std::string& module) {
  const auto m = static_cast<std::size_t>(index.find_module(module) - index.modules.data());
  const resolve::ModuleDecision& d = resolution.modules[m];
  if (d.decider.kind == resolve::Decider::Kind::DefaultGlobal)
    return json::object();
  if (d.full_precision || resolve::decider_null(doc, d.decider))
    return {{"op_input_spec", nullptr}, {"op_output_spec", nullptr}};
  const json* at = &values;
  for (const std::string& key : resolve::decider_path(doc, d.decider)) {
    if (!at->is_object() || !at->contains(key))
      return json::object();
    at = &(*at)[key];
  }
  if (!at->is_object())
    return json::object();
  json entry = *at;
  for (const char* table : {"op_name_config", "op_type_config", "module_state_spec"})
    entry.erase(table);
  return entry;
}

json with_weight_spec(json entry, const json& spec) {
  if (!entry.contains("op_state_spec") || !entry["op_state_spec"].is_object())
    entry["op_state_spec"] = json::object();
  entry["op_state_spec"]["weight"] = spec;
  return entry;
}

config::ConfigDocument read_text(const std::string& text, config::Format format,
                                 const std::string& what) {
  config::ConfigDocument doc = config::read_config(text, format);
  if (!doc.problems.empty())
    throw ProposeError(what + " does not read back (" + doc.problems.front().message +
                       "); please report it with the config");
  return doc;
}

// The entries that give every unit propose may write its choice.
std::vector<ProposedEntry> entries_for(const Candidates& candidates,
                                       const std::function<std::size_t(std::size_t)>& choice) {
  std::vector<ProposedEntry> entries;
  std::size_t b = 0;
  for (std::size_t u = 0; u < candidates.units.size(); ++u)
    for (const std::string& owner : candidates.units[u].owners) {
      if (candidates.units[u].usable)
        entries.push_back(
            {owner, with_weight_spec(candidates.bases[b], choices()[choice(u)].spec)});
      ++b;
    }
  return entries;
}

SquaredErrors measure_part(const std::string& model, const index::Index& index,
                           const std::vector<resolve::WeightQuantization>& weights,
                           const dialects::WeightsWorker& worker,
                           std::chrono::milliseconds timeout) {
  const std::string output =
      worker.run(model, resolve::weight_error_request(index, weights), timeout);
  std::istringstream lines(output);
  std::string line;
  std::getline(lines, line);
  if (nlohmann::json::parse(line, nullptr, false).value("weightless", false))
    throw ProposeError(model +
                       ": no weights in this archive (exported weightless); propose measures "
                       "the real weights: export with `opscope export TARGET --with-weights -o "
                       "model.pt2`");
  SquaredErrors out;
  for (const resolve::WeightQuantization& w : weights) {
    nlohmann::json answer =
        std::getline(lines, line) ? nlohmann::json::parse(line, nullptr, false) : nlohmann::json();
    if (!answer.is_object() || answer.contains("error") || !answer.contains("squared_error"))
      throw ProposeError("opscope-weights could not measure " +
                         index.parameters[static_cast<std::size_t>(w.parameter)].name + ": " +
                         (answer.is_object() && answer.contains("error")
                              ? answer["error"].get<std::string>()
                              : "no answer"));
    out.emplace_back(answer["squared_error"].get<double>(), answer["squared_norm"].get<double>());
  }
  return out;
}

} // namespace

const std::vector<Choice>& choices() {
  static const std::vector<Choice> kChoices = [] {
    auto spec = [](const char* dtype, json granularity) {
      return json{{"dtype", dtype}, {"granularity", std::move(granularity)}};
    };
    auto block = [&](int size) {
      return spec("int4", {{"type", "per_block"}, {"block_size", size}});
    };
    return std::vector<Choice>{{"float", nullptr},
                               {"int8 per channel", spec("int8", {{"type", "per_channel"}})},
                               {"int4 per channel", spec("int4", {{"type", "per_channel"}})},
                               {"int4 per block 32", block(32)},
                               {"int4 per block 64", block(64)},
                               {"int4 per block 128", block(128)}};
  }();
  return kChoices;
}

SquaredErrors measure_on(const std::string& model, const index::Index& index,
                         const std::vector<resolve::WeightQuantization>& weights,
                         const dialects::WeightsWorker& worker, std::chrono::milliseconds timeout) {
  auto elements = [&](const resolve::WeightQuantization& w) {
    return index.parameters[static_cast<std::size_t>(w.parameter)].numel();
  };
  std::int64_t total = 0;
  for (const auto& w : weights)
    total += elements(w);
  // Split where a weight's rows start (the worker reads a weight once for its rows).
  std::size_t split = 0;
  for (std::int64_t sum = 0; split < weights.size() && 2 * sum < total; ++split)
    sum += elements(weights[split]);
  while (split > 0 && split < weights.size() &&
         weights[split].parameter == weights[split - 1].parameter)
    ++split;
  const std::vector<resolve::WeightQuantization> first(
      weights.begin(), weights.begin() + static_cast<std::ptrdiff_t>(split));
  const std::vector<resolve::WeightQuantization> second(
      weights.begin() + static_cast<std::ptrdiff_t>(split), weights.end());
  if (first.empty() || second.empty())
    return measure_part(model, index, weights, worker, timeout);
  auto other = std::async(std::launch::async,
                          [&] { return measure_part(model, index, second, worker, timeout); });
  SquaredErrors out = measure_part(model, index, first, worker, timeout);
  SquaredErrors rest = other.get();
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

Candidates measure_candidates(const config::ConfigDocument& doc, const index::Index& index,
                              const std::string& path, const Measure& measure) {
  const std::optional<json> values = config::read_values(doc);
  if (!values)
    throw ProposeError(path + ": its values cannot be read");
  const resolve::Resolution resolution = resolve::resolve_config(doc, index);
  Candidates out;
  out.units = weights_to_choose(index);
  if (out.units.empty())
    throw ProposeError(path + ": no weight of this model that a module owns and the Quantizer "
                              "can take (Linear, Conv, Embedding weights)");
  for (const Candidates::Unit& u : out.units)
    for (const std::string& owner : u.owners)
      out.bases.push_back(base_entry(doc, *values, index, resolution, owner));

  // Every unit under each choice: one config each, resolved and sized as a whole.
  struct Trial {
    resolve::ProjectedSize size;
    std::map<int, resolve::WeightQuantization> quantized; // by parameter
  };
  std::vector<Trial> trials;
  std::vector<std::vector<std::int64_t>> bits(choices().size());
  std::vector<std::int64_t> fixed(choices().size());
  for (std::size_t c = 0; c < choices().size(); ++c) {
    const config::ConfigDocument trial =
        read_text(with_entries(doc, entries_for(out, [c](std::size_t) { return c; })), doc.format,
                  "the config with entries added");
    Trial t;
    t.size = resolve::projected_size(trial, index);
    if (!t.size.unavailable.empty())
      throw ProposeError(path + ": its projected size cannot be computed: " + t.size.unavailable);
    for (resolve::WeightQuantization& q : resolve::quantized_weights(trial, index))
      if (q.not_computed.empty())
        t.quantized.emplace(q.parameter, std::move(q));
    fixed[c] = t.size.bits_after;
    for (const Candidates::Unit& u : out.units) {
      bits[c].push_back(t.size.parameters[static_cast<std::size_t>(u.parameter)].bits_after);
      fixed[c] -= bits[c].back();
    }
    trials.push_back(std::move(t));
  }
  for (std::size_t c = 1; c < choices().size(); ++c)
    if (fixed[c] != fixed[0])
      throw ProposeError("the entries propose writes change tensors other than the weights "
                         "they name (" +
                         std::string(choices()[c].label) +
                         "); please report it with the config and model");

  // Which choices each unit can take, and the weights to measure under them.
  struct Row {
    std::size_t unit = 0;
    std::size_t choice = 0;
  };
  std::vector<Row> rows;
  out.options.resize(out.units.size());
  for (std::size_t u = 0; u < out.units.size(); ++u) {
    const auto p = static_cast<std::size_t>(out.units[u].parameter);
    out.options[u].options.resize(choices().size());
    out.options[u].options[0] = resolve::AllocationOption{bits[0][u], 0};
    if (trials[0].size.parameters[p].compressed) {
      out.units[u].usable = false; // another entry decides it whatever propose writes
      continue;
    }
    const std::size_t before = rows.size();
    for (std::size_t c = 1; c < choices().size(); ++c)
      if (trials[c].size.parameters[p].compressed &&
          trials[c].quantized.count(out.units[u].parameter))
        rows.push_back({u, c});
    // The Quantizer takes it under no choice (GPT-2's Conv1D, an addmm): no entry for it.
    out.units[u].usable = rows.size() > before;
  }
  if (rows.empty())
    throw ProposeError(path + ": the Quantizer takes none of this model's weights under the "
                              "choices propose offers");
  std::vector<resolve::WeightQuantization> weights;
  weights.reserve(rows.size());
  for (const Row& r : rows)
    weights.push_back(trials[r.choice].quantized.at(out.units[r.unit].parameter));
  const SquaredErrors errors = measure(weights);
  if (errors.size() != rows.size())
    throw ProposeError("opscope-weights answered " + std::to_string(errors.size()) + " of " +
                       std::to_string(rows.size()) + " weights");
  std::vector<double> norms(out.units.size(), 0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out.options[rows[i].unit].options[rows[i].choice] =
        resolve::AllocationOption{bits[rows[i].choice][rows[i].unit], errors[i].first};
    norms[rows[i].unit] = errors[i].second;
  }
  for (double n : norms)
    out.norm += n;
  out.fixed = fixed[0];
  out.total_weights = trials[0].size.total_weights;
  out.bits_before = trials[0].size.bits_before;
  out.bits_now = resolve::projected_size(doc, index).bits_after;
  out.measured = rows.size();
  return out;
}

Proposal propose(const config::ConfigDocument& doc, const index::Index& index,
                 const Candidates& candidates, std::int64_t budget, const std::string& path,
                 const std::string& asked) {
  const std::int64_t weights = candidates.total_weights;
  if (budget >= candidates.bits_before)
    throw ProposeError(path + ": " + asked + " is at or above the model in full precision (" +
                       bits_per_weight_text(candidates.bits_before, weights) +
                       " bits per weight, " + megabytes_text(candidates.bits_before) +
                       "): nothing needs compressing");
  const std::int64_t least = candidates.fixed + resolve::smallest_bits(candidates.options);
  if (budget < least)
    throw ProposeError(path + ": " + asked + " is below the smallest this config reaches (" +
                       bits_per_weight_text(least, weights) + " bits per weight, " +
                       megabytes_text(least) +
                       ", every weight at its smallest choice and the rest as the config has "
                       "it): ask for at least that");
  const resolve::Allocation chosen =
      resolve::allocate_bits(candidates.options, budget - candidates.fixed);
  Proposal out;
  out.text = with_entries(doc, entries_for(candidates, [&](std::size_t u) {
                            return static_cast<std::size_t>(chosen.choice[u]);
                          }));

  // The proposal as coreai-opt will read it: each weight as chosen, the total as computed.
  const config::ConfigDocument check = read_text(out.text, doc.format, "the proposed config");
  const resolve::ProjectedSize size = resolve::projected_size(check, index);
  if (!size.unavailable.empty() || size.bits_after != candidates.fixed + chosen.bits)
    throw ProposeError("the proposed config does not resolve as chosen (" +
                       (size.unavailable.empty()
                            ? std::to_string(size.bits_after) + " bits, not " +
                                  std::to_string(candidates.fixed + chosen.bits)
                            : size.unavailable) +
                       "); please report it with the config and model");
  out.budget = budget;
  out.bits = size.bits_after;
  out.total_weights = weights;
  out.error = chosen.error;
  out.norm = candidates.norm;
  std::map<std::string, int> counts;
  for (std::size_t u = 0; u < candidates.units.size(); ++u)
    if (candidates.units[u].usable) {
      ++counts[choices()[static_cast<std::size_t>(chosen.choice[u])].label];
      ++out.chosen;
    }
  for (const Choice& c : choices())
    if (counts.count(c.label))
      out.mix.emplace_back(c.label, counts[c.label]);
  for (std::size_t c = 1; c < choices().size(); ++c) {
    const resolve::Allocation same =
        resolve::uniform_allocation(candidates.options, static_cast<int>(c));
    if (candidates.fixed + same.bits <= budget &&
        (!out.best_uniform || same.error < out.best_uniform->error))
      out.best_uniform = Uniform{choices()[c].label, candidates.fixed + same.bits, same.error};
  }
  return out;
}

std::string bits_per_weight_text(std::int64_t bits, std::int64_t weights) {
  char text[64];
  std::snprintf(text, sizeof text, "%.4f",
                static_cast<double>(bits) / static_cast<double>(weights));
  return text;
}

std::string megabytes_text(std::int64_t bits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f MB", static_cast<double>(bits) / 8e6);
  return text;
}

std::string error_text(double error, double norm) {
  char text[96];
  if (error == 0)
    std::snprintf(text, sizeof text, "0 (lossless)");
  else
    std::snprintf(text, sizeof text, "%.6g (SQNR %.2f dB)", error, 10 * std::log10(norm / error));
  return text;
}

} // namespace opscope::propose
