// opscope-weights: the worker that measures what quantization does to a model's weights.
// `opscope explain` runs it as a child process (it links LibTorch; `opscope` does not).
//   opscope-weights WEIGHTS --request REQUEST.json
// WEIGHTS: a .pt2 archive saved with its weights, or a Hugging Face checkpoint's .safetensors
// file or folder (weight_source.h).
// REQUEST: {"tensors": [{"parameter", "qscheme", "formulation", "quant_min", "quant_max",
//           "block_size": [...]}]} (opscope/resolve/weight_quantization.h); optional
//           "aliases" (the parameter's other names) and "shape" (checked against the stored).
//           A row with "method": "prune" has "sparsity" and "channel_axis" (null:
//           unstructured) instead (prune.h); "method": "palettize" has "n_bits", "axis",
//           "group_size" (0: per tensor), "per_channel_scale", "fast_kmeans",
//           "rounding_precision" (palettize.h).
// Output, JSON lines as each tensor is done: first {"weights": true} or {"weightless": true}
// (then nothing more), then {"parameter", "sqnr_db" (null: nothing lost), "relative_error"}
// or {"parameter", "error"} per tensor, in the request's order; "squared_error" and
// "squared_norm" too (|w - q(w)|^2 and |w|^2, which add across tensors: `opscope propose`
// weighs its choices by them).
// Rows naming the same tensor one after another (propose's candidates) read it once.
// "fold": {"weight", "running_var", "eps", "axis"} scales the weight by its batch norm first
// (fake_quantize.h's fold_norm).
// Exit codes: 0 done, 1 the archive or request is unusable, 2 bad usage.
#include "fake_quantize.h"
#include "palettize.h"
#include "prune.h"
#include "sliced_error.h"
#include "weight_source.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr const char* kUsage =
    "usage: opscope-weights WEIGHTS --request REQUEST.json\n"
    "\n"
    "Reads the weight tensors a request names, one at a time, from WEIGHTS: a torch.export\n"
    "archive saved with them, or a Hugging Face checkpoint's .safetensors file or folder;\n"
    "fake-quantizes each as coreai-opt's prepare() does, and prints its SQNR (dB) and\n"
    "relative error as JSON lines (or prunes or palettizes it, as the MagnitudePruner and the\n"
    "KMeansPalettizer do). `opscope explain` writes the request.\n";

constexpr std::uintmax_t kMaxRequestBytes = std::uintmax_t{64} << 20;

nlohmann::json read_request(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw opscope::weights::WeightError(path + ": cannot read the request");
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > kMaxRequestBytes)
    throw opscope::weights::WeightError(path + ": a request is at most 64 MB");
  nlohmann::json request = nlohmann::json::parse(text.str(), nullptr, false);
  if (!request.is_object() || !request.contains("tensors") || !request["tensors"].is_array())
    throw opscope::weights::WeightError(path + ": not a request ({\"tensors\": [...]})");
  return request;
}

opscope::weights::Quantization quantization_of(const nlohmann::json& t) {
  opscope::weights::Quantization q;
  q.qscheme = t.at("qscheme").get<std::string>();
  q.formulation = t.at("formulation").get<std::string>();
  q.quant_min = t.at("quant_min").get<std::int64_t>();
  q.quant_max = t.at("quant_max").get<std::int64_t>();
  q.block_size = t.at("block_size").get<std::vector<std::int64_t>>();
  if (q.quant_min >= q.quant_max)
    throw std::invalid_argument("quant_min must be below quant_max");
  return q;
}

// The error of the compression a request row names: fake quantization (the default),
// magnitude pruning or KMeans palettization.
opscope::weights::Error compression_error(const torch::Tensor& weight, const nlohmann::json& t) {
  using namespace opscope::weights;
  const std::string method = t.value("method", "quantize");
  if (method == "prune") {
    Pruning p;
    p.sparsity = t.at("sparsity").get<double>();
    if (t.contains("channel_axis") && !t["channel_axis"].is_null())
      p.channel_axis = t["channel_axis"].get<int>();
    return pruning_error(weight, p);
  }
  if (method == "palettize") {
    Palettization p;
    p.n_bits = t.at("n_bits").get<int>();
    p.axis = t.value("axis", 0);
    p.group_size = t.value("group_size", std::int64_t{0});
    p.per_channel_scale = t.value("per_channel_scale", false);
    p.fast_kmeans = t.value("fast_kmeans", true);
    p.rounding_precision = t.value("rounding_precision", 4);
    return error_of(weight, palettize(weight, p));
  }
  if (method != "quantize")
    throw std::invalid_argument("method '" + method + "' is not quantize, prune or palettize");
  return quantization_error(weight, quantization_of(t));
}

// The last tensor read, kept while the next rows name it again.
struct LastRead {
  std::string name;
  torch::Tensor tensor;
};

nlohmann::json measure(const opscope::weights::WeightSource& records, const nlohmann::json& t,
                       LastRead& last) {
  using namespace opscope::weights;
  const std::string name = t.value("parameter", "");
  nlohmann::json row = {{"parameter", name}};
  try {
    if (last.name != name || !last.tensor.defined()) {
      last.tensor = torch::Tensor(); // freed before the next one is read
      last.tensor = records.read(name, t.value("aliases", std::vector<std::string>{}),
                                 t.value("shape", std::vector<std::int64_t>{}));
      last.name = name;
    }
    torch::Tensor weight = last.tensor;
    if (!weight.is_floating_point())
      throw WeightError("'" + name + "' is not a floating tensor");
    if (t.contains("fold")) { // a conv's weight as its batch norm scales it before the fake-quant
      const nlohmann::json& fold = t["fold"];
      weight = fold_norm(weight, records.read(fold.at("weight").get<std::string>()),
                         records.read(fold.at("running_var").get<std::string>()),
                         fold.at("eps").get<double>(), fold.at("axis").get<int>());
    }
    const Error e = compression_error(weight, t);
    row["sqnr_db"] = std::isinf(e.sqnr_db) ? nlohmann::json(nullptr) : nlohmann::json(e.sqnr_db);
    row["relative_error"] = e.relative_error;
    row["squared_error"] = e.squared_error;
    row["squared_norm"] = e.squared_norm;
  } catch (const std::exception& e) {
    row["error"] = e.what();
  }
  return row;
}

} // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string archive, request_path;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      std::cout << kUsage;
      return 0;
    }
    if (args[i] == "--request" && i + 1 < args.size())
      request_path = args[++i];
    else if (archive.empty() && !args[i].empty() && args[i][0] != '-')
      archive = args[i];
    else {
      std::cerr << "opscope-weights: unexpected argument '" << args[i] << "'\n" << kUsage;
      return 2;
    }
  }
  if (archive.empty() || request_path.empty()) {
    std::cerr << "opscope-weights: an archive and --request are needed\n" << kUsage;
    return 2;
  }
  try {
    const nlohmann::json request = read_request(request_path);
    const opscope::weights::WeightSource records(archive);
    if (records.weightless()) {
      std::cout << "{\"weightless\": true}" << std::endl;
      return 0;
    }
    std::cout << "{\"weights\": true}" << std::endl;
    torch::NoGradGuard no_grad;
    // One thread: each op here is a pass or two over one tensor, and OpenMP's threads cost
    // four times the CPU for it (ResNet-18's weights on the 2-core machine: 1.26 s of CPU
    // with the default threads, 0.32 s with one; bench/weight_error.py).
    torch::set_num_threads(1);
    LastRead last;
    for (const nlohmann::json& t : request["tensors"])
      std::cout << measure(records, t, last).dump() << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "opscope-weights: " << e.what() << "\n";
    return 1;
  }
}
