// `opscope propose CONFIG --model MODEL.pt2 --bits-per-weight B | --size S` (issue 28): a
// Quantizer config that fits a size budget with the least weight error, from
// core/dialects/coreai/propose (propose.h: the choices, their measurement, the allocation; the
// editor's code action calls the same). This file reads the arguments and the config, prints the
// proposal as a unified diff with its figures, and writes it with --write.
#include "commands.h"

#include "opscope/cli/dispatch.h"
#include "opscope/cli/model_options.h"
#include "opscope/coreai/compressors.h"
#include "opscope/coreai/config/document.h"
#include "opscope/model/model_kind.h"
#include "opscope/model/model_source.h"
#include "opscope/model/weights_worker.h"
#include "opscope/propose/config_edit.h"
#include "opscope/propose/propose.h"
#include "opscope/resolve/resolve.h"
#include "opscope/support/regular_file.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace opscope::cli {
namespace {

// A whole model's weights under five choices take seconds; a worker past this is stuck.
constexpr std::chrono::minutes kWorkerTimeout{10};
constexpr std::uint64_t kMaxConfigBytes = std::uint64_t{256} << 20;

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
    try { // before the model is loaded: can entries be written into this file at all?
      propose::with_entries(doc, {});
    } catch (const propose::EditError& e) {
      throw std::runtime_error(path + ": " + e.what());
    }

    model::Settings settings = model_settings(parsed);
    settings.mode = coreai::config_mode(doc.root, doc.execution_mode);
    settings.mode_given = true;
    const index::Index index = model::load_index(model, settings);
    if (!resolve::resolves(doc, index))
      throw std::runtime_error(path + ": opscope does not resolve this config on this model as "
                                      "coreai-opt does, so it cannot size a proposal");
    const propose::Candidates candidates = propose::measure_candidates(
        doc, index, path, [&](const std::vector<resolve::WeightQuantization>& weights) {
          return propose::measure_on(model, index, weights, model::weights_worker(),
                                     kWorkerTimeout);
        });

    // The budget, for the whole model; the units get what the rest leaves.
    const double wanted_bits =
        parsed.has("--size")
            ? parse_size(parsed.value("--size")) * 8
            : parse_number(parsed.value("--bits-per-weight"), "--bits-per-weight") *
                  static_cast<double>(candidates.total_weights);
    const std::string asked = parsed.has("--size")
                                  ? "--size " + parsed.value("--size")
                                  : "--bits-per-weight " + parsed.value("--bits-per-weight");
    const propose::Proposal proposal = propose::propose(
        doc, index, candidates, static_cast<std::int64_t>(std::floor(wanted_bits)), path, asked);

    const std::int64_t weights = proposal.total_weights;
    std::cout << propose::unified_diff(text, proposal.text, path);
    std::cout << "proposed: " << propose::bits_per_weight_text(proposal.bits, weights)
              << " bits per weight, " << propose::megabytes_text(proposal.bits) << " (budget "
              << propose::bits_per_weight_text(proposal.budget, weights) << ", "
              << propose::megabytes_text(proposal.budget) << "); weight error "
              << propose::error_text(proposal.error, proposal.norm) << "\n";
    std::string mix;
    for (const auto& [label, count] : proposal.mix)
      mix += (mix.empty() ? "" : ", ") + std::to_string(count) + " " + label;
    std::cout << "  " << mix << " (" << proposal.chosen << " weights)\n";
    if (!proposal.best_uniform)
      std::cout << "best uniform choice: none fits the budget\n";
    else
      std::cout << "best uniform choice: " << proposal.best_uniform->label << ": "
                << propose::bits_per_weight_text(proposal.best_uniform->bits, weights)
                << " bits per weight; weight error "
                << propose::error_text(proposal.best_uniform->error, proposal.norm) << "\n";
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    char timing[96];
    std::snprintf(timing, sizeof timing, "%zu fake quantizations measured; %.2f s\n",
                  candidates.measured, seconds);
    std::cout << timing;
    if (parsed.has("--write")) {
      write_over(path, proposal.text);
      std::cout << "written to " << path << "\n";
    }
    return kExitOk;
  });
}

} // namespace opscope::cli
