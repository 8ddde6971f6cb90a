// What the engine's host runs for a dialect on a model's real weights: the LibTorch worker
// `opscope-weights` (core/weights) in its own process. A dialect builds the request (its rules
// decide which weights and how each is quantized) and reads the answer back; the host starts
// the process, so a dialect's folder needs no process runner and no LibTorch.
#pragma once

#include <chrono>
#include <string>

namespace opscope::dialects {

// A whole model's weights on 2 cores take seconds; a worker past this is stuck.
inline constexpr std::chrono::minutes kWeightsWorkerTimeout{10};

// Why a model has no weights to measure, when it has none.
struct NoWeights {
  std::string why;         // "" when the weights are there to read
  bool weightless = false; // the model holds none (not: the host could not tell)
};

class WeightsWorker {
public:
  virtual ~WeightsWorker() = default;
  // Whether `model` (an archive, a checkpoint folder or file, or what a model argument names)
  // holds weights the worker can read; asked before run().
  virtual NoWeights why_no_weights(const std::string& model,
                                   std::chrono::milliseconds timeout) const = 0;
  // The worker's output for `request` (JSON text) on `model`: a header line, then one JSON
  // answer per tensor asked. Throws with a message that says what to do when the worker is
  // missing, fails, crashes or times out.
  virtual std::string run(const std::string& model, const std::string& request,
                          std::chrono::milliseconds timeout) const = 0;
};

} // namespace opscope::dialects
