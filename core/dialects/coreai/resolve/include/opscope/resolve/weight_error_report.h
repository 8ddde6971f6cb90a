// What a config's fake quantization does to each weight it quantizes, as measured (the numbers
// come from the LibTorch worker, resolve/weight_error.h asks the host to run it): plain rows that
// coreai-opt's features show and `explain` prints, kept here beside the resolution that
// decides each weight so the features need no process runner.
#pragma once

#include "opscope/resolve/weight_quantization.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::resolve {

struct WeightErrorRow {
  WeightQuantization quantization; // its parameter, dtype, block, deciding entry, ...
  bool measured = false;
  std::optional<double> sqnr_db; // nothing when the weight comes back unchanged (no error)
  double relative_error = 0;
  std::string not_measured; // why, when !measured
};

struct WeightErrorReport {
  bool applies = false;             // a Quantizer config that quantizes some weight of this model
  std::string unavailable;          // why nothing was measured ("" when rows hold the numbers)
  bool weightless = false;          // unavailable because the model holds no weights
  std::vector<WeightErrorRow> rows; // Index::parameters order
  std::vector<int> worst;           // up to three rows, lowest SQNR first
};

} // namespace opscope::resolve
