// A coreai-opt Quantizer config proposed for a size budget (issue 28): `opscope propose` and
// the editor's code action call this one place. Each weight the Quantizer can take (a weight
// of two or more axes, owned by a module: Linear, Conv, Embedding) gets one of choices() or
// stays as it is in float; the worker `opscope-weights` fake-quantizes each weight under each
// choice exactly as prepare() does and returns the squared error (measure_candidates: the
// seconds); resolve::allocate_bits picks per weight (least total squared error, so a tensor
// counts by its size, with the projected size <= the budget: propose, milliseconds). The
// choices are written as module_name_configs entries naming each module exactly, appended so
// they win coreai-opt's resolution (config_edit.h); the result is resolved and sized again
// before it is returned, and must come out as chosen.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/dialects/workers.h"
#include "opscope/index/index.h"
#include "opscope/resolve/bit_allocation.h"
#include "opscope/resolve/weight_quantization.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace opscope::propose {

// What cannot be proposed; the message names the file and says what to do.
class ProposeError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct Choice {
  const char* label;
  nlohmann::ordered_json spec; // the weight's spec; null: left in float
};
// int8 and int4 per output channel, int4 in blocks of 32, 64 or 128 along the input axis, or
// float (option 0, bit_allocation.h).
const std::vector<Choice>& choices();

// Squared error and squared norm of each weight under its quantization, in order.
using SquaredErrors = std::vector<std::pair<double, double>>;
using Measure = std::function<SquaredErrors(const std::vector<resolve::WeightQuantization>&)>;
// `weights` measured on `model` (an archive or a checkpoint) by two opscope-weights at once,
// each given about half of the elements: the GPT-2-124M shape's 255 fake quantizations are
// ~10 s of CPU on one thread (bench/propose.py). Throws ProposeError for a weightless model.
SquaredErrors measure_on(const std::string& model, const index::Index& index,
                         const std::vector<resolve::WeightQuantization>& weights,
                         const dialects::WeightsWorker& worker, std::chrono::milliseconds timeout);

// Every choice's bits and error for each weight of one config revision on one model.
struct Candidates {
  struct Unit {
    int parameter = 0;
    std::vector<std::string> owners; // the modules owning it (a tied weight has several)
    bool usable = true;              // false: another entry decides it whatever is written
  };
  std::vector<Unit> units;
  std::vector<nlohmann::ordered_json> bases;    // each owner's entry before its weight spec
  std::vector<resolve::AllocationUnit> options; // per unit, per choice
  std::int64_t fixed = 0;                       // bits of every tensor propose does not choose
  std::int64_t total_weights = 0;
  std::int64_t bits_before = 0; // the whole model in full precision
  std::int64_t bits_now = 0;    // under the config as it is
  double norm = 0;              // sum of the measured weights' squared norms
  std::size_t measured = 0;     // fake quantizations measured
};

// The candidates of `document` (a Quantizer config read without problems, whose resolution
// opscope computes: resolve::resolves) on `index`. `path` names the config in messages.
Candidates measure_candidates(const config::ConfigDocument& document, const index::Index& index,
                              const std::string& path, const Measure& measure);

struct Uniform {
  std::string label;
  std::int64_t bits = 0;
  double error = 0;
};

struct Proposal {
  std::string text; // the config with the entries appended
  std::int64_t budget = 0, bits = 0, total_weights = 0;
  double error = 0, norm = 0;
  std::vector<std::pair<std::string, int>> mix; // how many weights got each choice
  std::size_t chosen = 0;                       // weights propose wrote an entry for
  std::optional<Uniform> best_uniform;          // the best single choice that fits
};

// The proposal within `budget` bits for the whole model (`asked`: how the user said it, for
// messages). Throws ProposeError when the budget is at or above full precision or below the
// smallest the config reaches.
Proposal propose(const config::ConfigDocument& document, const index::Index& index,
                 const Candidates& candidates, std::int64_t budget, const std::string& path,
                 const std::string& asked);

// Text for people: bits per weight to 4 places, megabytes to 3, an error with its SQNR.
std::string bits_per_weight_text(std::int64_t bits, std::int64_t weights);
std::string megabytes_text(std::int64_t bits);
std::string error_text(double error, double norm);

} // namespace opscope::propose
