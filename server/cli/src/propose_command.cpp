// `opscope propose CONFIG --model MODEL.pt2 --bits-per-weight B | --size S` (issue 28): a
// Quantizer config that fits a size budget with the least weight error. Each weight the
// Quantizer can take (a weight of two or more axes, owned by a module: Linear, Conv,
// Embedding) gets one of the choices below or stays as it is in float; the worker
// `opscope-weights` fake-quantizes each weight under each choice exactly as prepare() does
// and returns the squared error; resolve::allocate_bits picks per weight (least total
// squared error, so a tensor counts by its size, with the projected size <= the budget).
// The choices are written as module_name_configs entries naming each module exactly,
// appended so they win coreai-opt's resolution; the result is resolved and sized again
// before it is shown, and must come out as chosen.
#include "commands.h"
#include "propose_edit.h"

#include "opscope/cli/dispatch.h"
#include "opscope/cli/model_options.h"
#include "opscope/config/document.h"
#include "opscope/config/values.h"
#include "opscope/coreai/compressors.h"
#include "opscope/model/model_kind.h"
#include "opscope/model/model_source.h"
#include "opscope/model/weight_error.h"
#include "opscope/resolve/bit_allocation.h"
#include "opscope/resolve/resolve.h"
#include "opscope/resolve/size.h"
#include "opscope/resolve/weight_quantization.h"
#include "opscope/support/regular_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <future>
#include <iostream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace opscope::cli {
namespace {

using json = nlohmann::ordered_json;

// A whole model's weights under five choices take seconds; a worker past this is stuck.
constexpr std::chrono::minutes kWorkerTimeout{10};
constexpr std::uint64_t kMaxConfigBytes = std::uint64_t{256} << 20;

struct Choice {
  const char* label;
  json spec; // the weight's spec; null: left in float
};

// The weight specs coreai-opt 0.4.0's Quantizer offers that propose chooses from: int8 and
// int4 per output channel, int4 in blocks of 32, 64 or 128 along the input axis (the axis
// prepare() defaults for the module), or float. Option 0 is float (bit_allocation.h).
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

CommandSpec propose_spec() {
  CommandSpec spec{
      "propose",
      "CONFIG --model MODEL.pt2 (--bits-per-weight B | --size S) [--write]",
      "Propose module_name_configs entries for a coreai-opt Quantizer config so that the "
      "model's projected size fits a budget with the least weight error: each weight a "
      "Linear, Conv or Embedding owns gets int8 or int4 per channel, int4 per block of "
      "32/64/128, or stays in float, chosen from its real weights.",
      "MODEL is a .pt2 archive saved with its weights (`opscope export TARGET --with-weights\n"
      "-o model.pt2`, or torch.export.save). Each choice's error is the sum of squared\n"
      "differences between the weight and the weight prepare() fake-quantizes (opscope-weights);\n"
      "the proposal minimises its total with the projected size (bits_per_weight(), as\n"
      "`opscope explain` computes it) within the budget. It prints the proposed config as a\n"
      "unified diff, the bits per weight and error it reaches and those of the best uniform\n"
      "choice that fits; --write writes it (to a temporary file, then renamed over CONFIG).\n"
      "YAML (block style) and JSON configs.",
      {},
      {"CONFIG"}};
  // Of the model options, those that apply to an archive (the mode is the config's).
  for (const OptionSpec& option : model_options(false))
    if (option.name == "--quiet" || option.name == "--no-cache")
      spec.options.push_back(option);
  spec.options.insert(
      spec.options.begin(),
      {{"--model", "-m", "M", "the model: a .pt2 archive saved with its weights"},
       {"--bits-per-weight", "", "B",
        "the budget in bits per weight of the whole model (e.g. 4.5)"},
       {"--size", "", "S", "the budget as the model's size: 3.5GB, 700MB, 2GiB, 1200000B"},
       {"--write", "", "", "write the proposed config over CONFIG"}});
  return spec;
}

double parse_number(const std::string& text, const std::string& option) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(value) || value <= 0)
    throw UsageError(option + " '" + text + "': give a positive number");
  return value;
}

// Bytes, from "3.5GB" (decimal units, as explain prints MB) or "2GiB" (binary).
double parse_size(const std::string& text) {
  static const std::vector<std::pair<std::string, double>> kUnits = {{"GiB", 1024.0 * 1024 * 1024},
                                                                     {"MiB", 1024.0 * 1024},
                                                                     {"KiB", 1024.0},
                                                                     {"GB", 1e9},
                                                                     {"MB", 1e6},
                                                                     {"KB", 1e3},
                                                                     {"kB", 1e3},
                                                                     {"B", 1}};
  for (const auto& [unit, factor] : kUnits)
    if (text.size() > unit.size() &&
        text.compare(text.size() - unit.size(), unit.size(), unit) == 0)
      return parse_number(text.substr(0, text.size() - unit.size()), "--size") * factor;
  throw UsageError("--size '" + text +
                   "': give a number and a unit (B, KB, MB, GB, KiB, MiB, "
                   "GiB), e.g. 3.5GB");
}

// A weight propose chooses for: one tensor and the modules that own it (a tied weight has
// several; each gets the same entry, so whichever decides it decides the same).
struct Unit {
  int parameter = 0;
  std::vector<std::string> owners;
};

std::vector<Unit> weights_to_choose(const index::Index& index) {
  std::vector<Unit> units;
  for (std::size_t p = 0; p < index.parameters.size(); ++p) {
    const index::Parameter& w = index.parameters[p];
    const bool floating = w.dtype == "float32" || w.dtype == "float16" || w.dtype == "bfloat16";
    if (w.buffer || !floating || w.shape.size() < 2)
      continue;
    Unit u{static_cast<int>(p), {}};
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
    throw std::runtime_error(what + " does not read back (" + doc.problems.front().message +
                             "); please report it with the config");
  return doc;
}

// What one choice does to every unit: its bits and, when the Quantizer applies it, the
// fake quantization to measure.
struct Measured {
  resolve::ProjectedSize size;
  std::map<int, resolve::WeightQuantization> quantized; // by parameter
};

struct Row {
  std::size_t unit = 0;
  std::size_t choice = 0;
};

// One worker's answers for `rows`: squared error and squared norm, in order.
std::vector<std::pair<double, double>>
measure_part(const std::string& archive, const index::Index& index, const std::vector<Row>& rows,
             const std::vector<Unit>& units, const std::vector<Measured>& measured) {
  std::vector<resolve::WeightQuantization> weights;
  weights.reserve(rows.size());
  for (const Row& r : rows)
    weights.push_back(measured[r.choice].quantized.at(units[r.unit].parameter));
  const std::string output = model::run_weights_worker(
      archive, model::weight_error_request(index, weights), kWorkerTimeout);
  std::istringstream lines(output);
  std::string line;
  std::getline(lines, line);
  if (nlohmann::json::parse(line, nullptr, false).value("weightless", false))
    throw std::runtime_error(archive +
                             ": no weights in this archive (exported weightless); "
                             "propose measures the real weights: export with `opscope export "
                             "TARGET --with-weights -o model.pt2`");
  std::vector<std::pair<double, double>> out;
  for (const Row& r : rows) {
    nlohmann::json answer =
        std::getline(lines, line) ? nlohmann::json::parse(line, nullptr, false) : nlohmann::json();
    if (!answer.is_object() || answer.contains("error") || !answer.contains("squared_error"))
      throw std::runtime_error(
          "opscope-weights could not measure " +
          index.parameters[static_cast<std::size_t>(units[r.unit].parameter)].name + ": " +
          (answer.is_object() && answer.contains("error") ? answer["error"].get<std::string>()
                                                          : "no answer"));
    out.emplace_back(answer["squared_error"].get<double>(), answer["squared_norm"].get<double>());
  }
  return out;
}

// The answers for `rows` (grouped by weight), from two workers at once, each given about
// half of the elements: the GPT-2-124M shape's 255 fake quantizations are ~10 s of CPU
// on one thread (bench/propose.py), and the machine this runs on has two cores or more.
std::vector<std::pair<double, double>>
measure(const std::string& archive, const index::Index& index, const std::vector<Row>& rows,
        const std::vector<Unit>& units, const std::vector<Measured>& measured) {
  auto elements = [&](const Row& r) {
    return index.parameters[static_cast<std::size_t>(units[r.unit].parameter)].numel();
  };
  std::int64_t total = 0;
  for (const Row& r : rows)
    total += elements(r);
  // Split where a weight's rows start (the worker reads a weight once for its rows).
  std::size_t split = 0;
  for (std::int64_t sum = 0; split < rows.size() && 2 * sum < total; ++split)
    sum += elements(rows[split]);
  while (split > 0 && split < rows.size() && rows[split].unit == rows[split - 1].unit)
    ++split;
  const std::vector<Row> first(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(split));
  const std::vector<Row> second(rows.begin() + static_cast<std::ptrdiff_t>(split), rows.end());
  if (first.empty() || second.empty())
    return measure_part(archive, index, rows, units, measured);
  auto other = std::async(std::launch::async,
                          [&] { return measure_part(archive, index, second, units, measured); });
  std::vector<std::pair<double, double>> out = measure_part(archive, index, first, units, measured);
  std::vector<std::pair<double, double>> rest = other.get();
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

// Written to a temporary file beside `path`, then renamed over it: a failure midway leaves
// the user's file as it was. Keeps its permissions.
void write_over(const std::string& path, const std::string& text) {
  struct stat before {};
  const bool had = ::stat(path.c_str(), &before) == 0;
  std::string temp = path + ".opscope-XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0)
    throw std::runtime_error(path + ": cannot create a temporary file beside it");
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (had)
    ok = ok && ::fchmod(fd, before.st_mode & 07777) == 0;
  ok = ::fsync(fd) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(temp.c_str(), path.c_str()) != 0) {
    ::unlink(temp.c_str());
    throw std::runtime_error(path + ": cannot write the proposed config; the file is unchanged");
  }
}

std::string bpw_text(std::int64_t bits, std::int64_t weights) {
  char text[64];
  std::snprintf(text, sizeof text, "%.4f",
                static_cast<double>(bits) / static_cast<double>(weights));
  return text;
}

std::string megabytes(std::int64_t bits) {
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

} // namespace

int run_propose(const std::vector<std::string>& args) {
  return guarded("propose", [&] {
    const auto started = std::chrono::steady_clock::now();
    CommandSpec spec = propose_spec();
    ParsedArgs parsed = parse_args(spec, args);
    if (parsed.help) {
      std::cout << help_text(spec);
      return kExitOk;
    }
    if (parsed.has("--bits-per-weight") == parsed.has("--size"))
      throw UsageError("give the budget once: --bits-per-weight B or --size S");
    if (!parsed.has("--model"))
      throw UsageError("--model is needed: a .pt2 archive saved with its weights");
    const std::string path = parsed.positionals[0];
    const std::string model = parsed.value("--model");

    std::string text;
    try {
      text = support::read_regular_file(path, kMaxConfigBytes);
    } catch (const support::FileReadError& e) {
      throw std::runtime_error(std::string(e.what()) + "; check the path");
    }
    const config::ConfigDocument doc = config::read_config(text, config::guess_format(path, text));
    if (!doc.problems.empty()) {
      const config::SyntaxProblem& p = doc.problems.front();
      throw std::runtime_error(path + ":" + std::to_string(p.range.start.line + 1) + ":" +
                               std::to_string(p.range.start.byte_col + 1) + ": " + p.message +
                               " (fix it first; `opscope check " + path + "` lists every problem)");
    }
    if (doc.root != index::Compressor::Quantizer)
      throw std::runtime_error(path + ": propose writes coreai-opt Quantizer configs (root key "
                                      "quantization_config)");
    if (doc.execution_mode && !coreai::execution_mode_value(*doc.execution_mode))
      throw std::runtime_error(path + ": execution_mode '" + *doc.execution_mode +
                               "': coreai-opt runs graph or eager; fix the value");
    if (model::model_kind(model) != model::ModelKind::Archive)
      throw std::runtime_error(model +
                               ": propose reads the weights of a .pt2 archive saved with "
                               "them (`opscope export TARGET --with-weights -o model.pt2`)");
    const std::optional<json> values = config::read_values(doc);
    if (!values)
      throw std::runtime_error(path + ": its values cannot be read");
    try { // before the model is loaded: can entries be written into this file at all?
      with_entries(doc, {});
    } catch (const EditError& e) {
      throw std::runtime_error(path + ": " + e.what());
    }

    model::Settings settings = model_settings(parsed);
    settings.mode = coreai::config_mode(doc.root, doc.execution_mode);
    settings.mode_given = true;
    const index::Index index = model::load_index(model, settings);
    if (!resolve::resolves(doc, index))
      throw std::runtime_error(path + ": opscope does not resolve this config on this model as "
                                      "coreai-opt does, so it cannot size a proposal");
    const resolve::Resolution resolution = resolve::resolve_config(doc, index);

    const std::vector<Unit> units = weights_to_choose(index);
    if (units.empty())
      throw std::runtime_error(model + ": no weight here that a module owns and the Quantizer "
                                       "can take (Linear, Conv, Embedding weights)");
    std::vector<json> bases;
    for (const Unit& u : units)
      for (const std::string& owner : u.owners)
        bases.push_back(base_entry(doc, *values, index, resolution, owner));

    // Every unit under each choice: one config each, resolved and sized as a whole.
    std::vector<Measured> measured;
    std::vector<std::vector<std::int64_t>> bits(choices().size());
    std::vector<std::int64_t> fixed(choices().size());
    for (std::size_t c = 0; c < choices().size(); ++c) {
      std::vector<ProposedEntry> entries;
      std::size_t b = 0;
      for (const Unit& u : units)
        for (const std::string& owner : u.owners)
          entries.push_back({owner, with_weight_spec(bases[b++], choices()[c].spec)});
      const config::ConfigDocument trial =
          read_text(with_entries(doc, entries), doc.format, "the config with entries added");
      Measured m;
      m.size = resolve::projected_size(trial, index);
      if (!m.size.unavailable.empty())
        throw std::runtime_error(path +
                                 ": its projected size cannot be computed: " + m.size.unavailable);
      for (resolve::WeightQuantization& q : resolve::quantized_weights(trial, index))
        if (q.not_computed.empty())
          m.quantized.emplace(q.parameter, std::move(q));
      fixed[c] = m.size.bits_after;
      for (const Unit& u : units) {
        bits[c].push_back(m.size.parameters[static_cast<std::size_t>(u.parameter)].bits_after);
        fixed[c] -= bits[c].back();
      }
      measured.push_back(std::move(m));
    }
    for (std::size_t c = 1; c < choices().size(); ++c)
      if (fixed[c] != fixed[0])
        throw std::runtime_error("the entries propose writes change tensors other than the "
                                 "weights they name (" +
                                 std::string(choices()[c].label) +
                                 "); please report it with the config and model");

    // Which choices each unit can take, and the weights to measure under them.
    std::vector<Row> rows;
    std::vector<resolve::AllocationUnit> options(units.size());
    std::vector<bool> usable(units.size(), true);
    for (std::size_t u = 0; u < units.size(); ++u) {
      const auto p = static_cast<std::size_t>(units[u].parameter);
      options[u].options.resize(choices().size());
      if (measured[0].size.parameters[p].compressed) {
        usable[u] = false; // another entry decides it whatever propose writes (kept as is)
        options[u].options[0] = resolve::AllocationOption{bits[0][u], 0};
        continue;
      }
      options[u].options[0] = resolve::AllocationOption{bits[0][u], 0};
      const std::size_t before = rows.size();
      for (std::size_t c = 1; c < choices().size(); ++c)
        if (measured[c].size.parameters[p].compressed &&
            measured[c].quantized.count(units[u].parameter))
          rows.push_back({u, c});
      // The Quantizer takes it under no choice (GPT-2's Conv1D, an addmm): no entry for it.
      usable[u] = rows.size() > before;
    }
    if (rows.empty())
      throw std::runtime_error(model + ": the Quantizer takes none of this model's weights under "
                                       "the choices propose offers");
    const auto errors = measure(model, index, rows, units, measured);
    std::vector<double> norms(units.size(), 0);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      options[rows[i].unit].options[rows[i].choice] =
          resolve::AllocationOption{bits[rows[i].choice][rows[i].unit], errors[i].first};
      norms[rows[i].unit] = errors[i].second;
    }
    double norm = 0;
    for (double n : norms)
      norm += n;

    // The budget, for the whole model; the units get what the rest leaves.
    const resolve::ProjectedSize& as_float = measured[0].size;
    const std::int64_t weights = as_float.total_weights;
    const double wanted_bits =
        parsed.has("--size")
            ? parse_size(parsed.value("--size")) * 8
            : parse_number(parsed.value("--bits-per-weight"), "--bits-per-weight") *
                  static_cast<double>(weights);
    const auto budget = static_cast<std::int64_t>(std::floor(wanted_bits));
    const std::string asked = parsed.has("--size")
                                  ? "--size " + parsed.value("--size")
                                  : "--bits-per-weight " + parsed.value("--bits-per-weight");
    if (budget >= as_float.bits_before)
      throw std::runtime_error(path + ": " + asked +
                               " is at or above the model in full precision (" +
                               bpw_text(as_float.bits_before, weights) + " bits per weight, " +
                               megabytes(as_float.bits_before) + "): nothing needs compressing");
    const std::int64_t least = fixed[0] + resolve::smallest_bits(options);
    if (budget < least)
      throw std::runtime_error(path + ": " + asked +
                               " is below the smallest this config reaches (" +
                               bpw_text(least, weights) + " bits per weight, " + megabytes(least) +
                               ", every weight at its smallest choice and the rest as the config "
                               "has it): ask for at least that");
    const resolve::Allocation chosen = resolve::allocate_bits(options, budget - fixed[0]);

    std::vector<ProposedEntry> entries;
    std::size_t b = 0;
    std::map<std::string, int> counts;
    for (std::size_t u = 0; u < units.size(); ++u) {
      const auto c = static_cast<std::size_t>(chosen.choice[u]);
      for (const std::string& owner : units[u].owners) {
        if (usable[u])
          entries.push_back({owner, with_weight_spec(bases[b], choices()[c].spec)});
        ++b;
      }
      if (usable[u])
        ++counts[choices()[c].label];
    }
    const std::string proposed = with_entries(doc, entries);

    // The proposal as coreai-opt will read it: each weight as chosen, the total as computed.
    const config::ConfigDocument check = read_text(proposed, doc.format, "the proposed config");
    const resolve::ProjectedSize size = resolve::projected_size(check, index);
    if (!size.unavailable.empty() || size.bits_after != fixed[0] + chosen.bits)
      throw std::runtime_error("the proposed config does not resolve as chosen (" +
                               (size.unavailable.empty()
                                    ? std::to_string(size.bits_after) + " bits, not " +
                                          std::to_string(fixed[0] + chosen.bits)
                                    : size.unavailable) +
                               "); please report it with the config and model");

    std::cout << unified_diff(text, proposed, path);
    std::cout << "proposed: " << bpw_text(size.bits_after, weights) << " bits per weight, "
              << megabytes(size.bits_after) << " (budget " << bpw_text(budget, weights) << ", "
              << megabytes(budget) << "); weight error " << error_text(chosen.error, norm) << "\n";
    std::string mix;
    for (const Choice& c : choices())
      if (counts.count(c.label))
        mix += (mix.empty() ? "" : ", ") + std::to_string(counts[c.label]) + " " + c.label;
    std::cout << "  " << mix << " (" << std::count(usable.begin(), usable.end(), true)
              << " weights)\n";
    int best = -1;
    resolve::Allocation best_uniform;
    for (std::size_t c = 1; c < choices().size(); ++c) {
      resolve::Allocation same = resolve::uniform_allocation(options, static_cast<int>(c));
      if (fixed[0] + same.bits <= budget && (best < 0 || same.error < best_uniform.error)) {
        best = static_cast<int>(c);
        best_uniform = same;
      }
    }
    if (best < 0)
      std::cout << "best uniform choice: none fits the budget\n";
    else
      std::cout << "best uniform choice: " << choices()[static_cast<std::size_t>(best)].label
                << ": " << bpw_text(fixed[0] + best_uniform.bits, weights)
                << " bits per weight; weight error " << error_text(best_uniform.error, norm)
                << "\n";
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    char timing[96];
    std::snprintf(timing, sizeof timing, "%zu fake quantizations measured; %.2f s\n", rows.size(),
                  seconds);
    std::cout << timing;
    if (parsed.has("--write")) {
      write_over(path, proposed);
      std::cout << "written to " << path << "\n";
    }
    return kExitOk;
  });
}

} // namespace opscope::cli
