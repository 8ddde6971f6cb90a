// The saved checkpoint's tensors, as compressed-tensors 0.19 makes them: initialize_qparams
// (quantization/lifecycle/initialize.py), infer_module_format (compressors/format.py), and each
// compressor's compress() (compressors/*/base.py). tests/dialects/test_llmcompressor_size.py
// compares the total with the checkpoints llm-compressor saves.
#include "opscope/dialects/llmcompressor/size.h"
#include "opscope/dialects/llmcompressor/linearize.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace opscope::dialects::llmcompressor {
namespace {

using index::Parameter;
using Tensors = std::vector<Parameter>;

constexpr std::string_view kLinear = "torch.nn.modules.linear.Linear";
constexpr std::string_view kEmbedding = "torch.nn.modules.sparse.Embedding";

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

Parameter tensor(std::string name, std::vector<std::int64_t> shape, std::string dtype) {
  Parameter p;
  p.name = std::move(name);
  p.shape = std::move(shape);
  p.dtype = std::move(dtype);
  return p;
}

std::int64_t bytes_of(const Parameter& p) {
  return p.numel() * p.element_bits() / 8;
}

std::int64_t bytes_of(const Tensors& tensors) {
  std::int64_t total = 0;
  for (const Parameter& t : tensors)
    total += bytes_of(t);
  return total;
}

// QuantizationArgs.pytorch_dtype (float: 8 bits only; the zero point of 4-bit floats is FP8).
std::optional<std::string> quantized_dtype(const Quant& q) {
  if (q.is_float)
    return q.bits == 8 ? std::optional<std::string>("float8_e4m3fn") : std::nullopt;
  return q.bits <= 8 ? "int8" : q.bits <= 16 ? "int16" : "int32";
}

std::string zero_point_dtype(const Quant& q) {
  if (q.is_float)
    return "float8_e4m3fn";
  return *quantized_dtype(q);
}

Tensors::iterator find(Tensors& state, std::string_view name) {
  return std::find_if(state.begin(), state.end(),
                      [&](const Parameter& p) { return p.name == name; });
}

void drop(Tensors& state, std::string_view name) {
  if (auto at = find(state, name); at != state.end())
    state.erase(at);
}

// initialize_qparams(module, base, args, observed_shape, observed_dtype, force_zero_point=True).
bool register_qparams(const std::string& base, const Quant& q,
                      const std::vector<std::int64_t>& observed, const std::string& scale_dtype,
                      Tensors& state, std::string& why) {
  if (q.dynamic == "true")
    return true;
  if (q.strategy == "tensor_group")
    state.push_back(tensor(base + "_global_scale", {1}, "float32"));
  if (q.dynamic == "local")
    return true;
  std::vector<std::int64_t> shape;
  if (q.strategy == "tensor") {
    shape = {1};
  } else if (q.strategy == "channel" && observed.size() >= 2) {
    shape = {observed[observed.size() - 2], 1};
  } else if ((q.strategy == "group" || q.strategy == "tensor_group") && !observed.empty() &&
             q.group_size > 0) {
    shape.assign(observed.begin(), observed.end() - 1);
    shape.push_back(ceil_div(observed.back(), q.group_size));
  } else if (q.strategy == "block" && observed.size() >= 2 && q.block_structure.size() == 2 &&
             q.block_structure[0] > 0 && q.block_structure[1] > 0) {
    shape = {ceil_div(observed[observed.size() - 2], q.block_structure[0]),
             ceil_div(observed.back(), q.block_structure[1])};
  } else {
    why = "compressed-tensors cannot give " + base + " a " + q.strategy + " scale";
    return false;
  }
  state.push_back(tensor(base + "_scale", shape, scale_dtype));
  state.push_back(tensor(base + "_zero_point", shape, zero_point_dtype(q)));
  return true;
}

// BaseCompressor._remove_symmetric_zp.
void remove_symmetric_zero_points(const Scheme& s, Tensors& state) {
  if (s.input_activations && s.input_activations->symmetric)
    drop(state, "input_zero_point");
  if (s.weights && s.weights->symmetric)
    drop(state, "weight_zero_point");
  if (s.output_activations && s.output_activations->symmetric)
    drop(state, "output_zero_point");
}

void set_dtype(Tensors& state, std::string_view name, const std::string& dtype) {
  if (auto at = find(state, name); at != state.end())
    at->dtype = dtype;
}

// PackedQuantizationCompressor.compress: int32 words, no padding bits.
bool pack(const Quant& w, Tensors& state, std::string& why) {
  auto weight = find(state, "weight");
  if (w.bits < 1 || w.bits > 8 || weight->shape.empty()) {
    why = "pack-quantized packs 1 to 8 bits only";
    return false;
  }
  std::vector<std::int64_t> packed = weight->shape;
  packed.back() = ceil_div(packed.back() * w.bits, 32);
  auto ndim = static_cast<std::int64_t>(weight->shape.size());
  state.erase(weight);
  state.push_back(tensor("weight_packed", packed, "int32"));
  state.push_back(tensor("weight_shape", {ndim}, "int64"));
  if (!w.symmetric && (w.strategy == "group" || w.strategy == "channel"))
    if (auto zp = find(state, "weight_zero_point"); zp != state.end() && zp->shape.size() == 2) {
      zp->shape[0] = ceil_div(zp->shape[0] * w.bits, 32); // packed along the rows
      zp->dtype = "int32";
    }
  return true;
}

// NVFP4PackedCompressor / MXFP4PackedCompressor.compress: two FP4 values per uint8.
bool pack_fp4(const Quant& w, const std::string& default_scale, Tensors& state, std::string& why) {
  auto weight = find(state, "weight");
  if (weight->shape.size() != 2 || weight->shape[1] % 2 != 0) {
    why = "FP4 packing needs a 2-D weight with an even number of columns";
    return false;
  }
  std::vector<std::int64_t> packed = {weight->shape[0], weight->shape[1] / 2};
  state.erase(weight);
  state.push_back(tensor("weight_packed", packed, "uint8"));
  set_dtype(state, "weight_scale", w.scale_dtype.empty() ? default_scale : w.scale_dtype);
  return true;
}

// NaiveQuantizationCompressor.compress: the weight at the quantized dtype, same shape.
bool store_quantized(const Quant& w, Tensors& state, std::string& why) {
  std::optional<std::string> dtype = quantized_dtype(w);
  if (!dtype) {
    why = "compressed-tensors stores float weights of 8 bits only";
    return false;
  }
  set_dtype(state, "weight", *dtype);
  return true;
}

bool compress(const std::string& format, const Scheme& s, Tensors& state, std::string& why) {
  if (format == "dense")
    return true; // the state dict as it is, zero points included
  if (!s.weights) {
    why = "the " + format + " compressor needs quantized weights";
    return false;
  }
  const Quant& w = *s.weights;
  bool ok = false;
  if (format == "pack-quantized")
    ok = pack(w, state, why);
  else if (format == "naive-quantized" || format == "int-quantized" || format == "float-quantized")
    ok = store_quantized(w, state, why);
  else if (format == "mxfp8-quantized") {
    ok = store_quantized(w, state, why);
    set_dtype(state, "weight_scale", w.scale_dtype.empty() ? "uint8" : w.scale_dtype);
  } else if (format == "nvfp4-pack-quantized")
    ok = pack_fp4(w, "float8_e4m3fn", state, why);
  else if (format == "mxfp4-pack-quantized")
    ok = pack_fp4(w, "uint8", state, why);
  else
    why = "format `" + format + "`: opscope does not project its size";
  if (ok)
    remove_symmetric_zero_points(s, state);
  return ok;
}

bool is_float_dtype(const std::string& dtype) {
  return dtype == "float16" || dtype == "bfloat16" || dtype == "float32" || dtype == "float64";
}

} // namespace

std::string inferred_format(const Scheme& s, bool compressible) {
  if (!compressible || !s.weights)
    return "dense";
  const Quant& w = *s.weights;
  if (w.bits == 4 && w.is_float && w.group_size == 32)
    return "mxfp4-pack-quantized";
  if (w.bits == 8 && w.is_float && w.group_size == 32 && w.scale_dtype == "uint8")
    return "mxfp8-quantized";
  if (w.bits == 4 && w.is_float && w.group_size == 16)
    return "nvfp4-pack-quantized";
  if (s.input_activations && !w.is_float)
    return "int-quantized";
  bool float_inputs = s.input_activations && s.input_activations->is_float;
  if (!float_inputs && w.bits >= 1 && w.bits <= 8 && !w.is_float)
    return "pack-quantized";
  if (s.input_activations && w.is_float)
    return "float-quantized";
  return "naive-quantized";
}

std::optional<CompressedModule> compress_module(const Scheme& scheme,
                                                const std::optional<std::string>& format,
                                                const index::ModuleObject& module,
                                                const Parameter& weight, std::string& why) {
  // initialize_qparams: scales at the weight's dtype, float16 when it is not a float.
  const std::string scale_dtype = is_float_dtype(weight.dtype) ? weight.dtype : "float16";
  Tensors state = {tensor("weight", weight.shape, weight.dtype)};
  const std::vector<std::int64_t>& shape = weight.shape;
  if (shape.empty()) {
    why = "its weight has no shape";
    return std::nullopt;
  }
  std::vector<std::int64_t> columns = {shape.back()};
  std::vector<std::int64_t> rows(shape.begin(), shape.end() - 1);
  if (scheme.input_activations &&
      !register_qparams("input", *scheme.input_activations, columns, scale_dtype, state, why))
    return std::nullopt;
  if (scheme.weights &&
      !register_qparams("weight", *scheme.weights, shape, scale_dtype, state, why))
    return std::nullopt;
  if (scheme.output_activations &&
      !register_qparams("output", *scheme.output_activations, rows, scale_dtype, state, why))
    return std::nullopt;
  CompressedModule out;
  // COMPRESSIBLE_MODULE_TYPES is tested with `in`: the exact class, not a subclass.
  out.format = format
                   ? *format
                   : inferred_format(scheme, module.type == kLinear || module.type == kEmbedding);
  if (!compress(out.format, scheme, state, why))
    return std::nullopt;
  out.tensors = std::move(state);
  out.weights = weight.numel();
  out.bytes_before = bytes_of(weight);
  out.bytes_after = bytes_of(out.tensors);
  return out;
}

ProjectedCheckpoint project_checkpoint(const std::vector<Modifier>& modifiers,
                                       const std::vector<Resolution>& resolutions,
                                       const index::Index& model) {
  ProjectedCheckpoint size;
  const auto& modules = model.named_modules();
  if (model.parameters.empty() || modules.empty()) {
    size.unavailable = "the model's index records no parameters";
    return size;
  }
  // The last modifier setting a scheme on a module decides it.
  struct Carried {
    int modifier = -1;
    int group = -1;
  };
  std::vector<Carried> carried(modules.size());
  for (std::size_t i = 0; i < modifiers.size() && i < resolutions.size(); ++i) {
    const Resolution& r = resolutions[i];
    if (r.error) {
      size.unavailable = "llm-compressor refuses the " + modifiers[i].class_name + " at line " +
                         std::to_string(modifiers[i].anchor.start.line + 1) +
                         ", so it saves nothing";
      return size;
    }
    for (const Applied& a : r.applied)
      if (!a.attention)
        carried[static_cast<std::size_t>(a.module)] = {static_cast<int>(i), a.group};
  }
  // Each parameter's quantized readers: the modules carrying a scheme whose weight it is.
  auto weight_of = [](const std::string& module) {
    return module.empty() ? std::string("weight") : module + ".weight";
  };
  std::vector<std::vector<int>> readers(model.parameters.size());
  for (std::size_t m = 0; m < modules.size(); ++m)
    if (carried[m].modifier >= 0)
      if (const Parameter* w = model.find_parameter(weight_of(modules[m].name)))
        readers[static_cast<std::size_t>(w - model.parameters.data())].push_back(
            static_cast<int>(m));
  std::map<std::string, int> formats;
  for (std::size_t i = 0; i < model.parameters.size(); ++i) {
    const Parameter& p = model.parameters[i];
    if (p.buffer)
      continue;
    const std::int64_t bytes = bytes_of(p);
    size.weights += p.numel();
    size.bytes_before += bytes;
    const std::vector<int>& quantized = readers[i];
    // A tied tensor another name keeps (the embedding of a quantized head) is saved as it is.
    bool kept_as_is = false;
    if (!quantized.empty() && !p.aliases.empty()) {
      auto read_as_weight = [&](const std::string& name) {
        for (int m : quantized) {
          const index::ModuleObject& o = modules[static_cast<std::size_t>(m)];
          if (name == weight_of(o.name))
            return true;
          for (const std::string& alias : o.aliases)
            if (name == weight_of(alias))
              return true;
        }
        return false;
      };
      kept_as_is = !read_as_weight(p.name);
      for (const std::string& alias : p.aliases)
        kept_as_is = kept_as_is || !read_as_weight(alias);
    }
    if (quantized.empty()) {
      size.bytes_after += bytes;
      continue;
    }
    std::int64_t after = kept_as_is ? bytes : 0;
    std::vector<std::int64_t> each;
    std::vector<std::pair<std::string, const Scheme*>> kinds;
    for (int m : quantized) {
      const Carried& c = carried[static_cast<std::size_t>(m)];
      const Modifier& modifier = modifiers[static_cast<std::size_t>(c.modifier)];
      const Group& group = resolutions[static_cast<std::size_t>(c.modifier)]
                               .groups[static_cast<std::size_t>(c.group)];
      std::optional<std::string> format = group.format;
      if (!format && modifier.format && modifier.format->text != "mixed-precision")
        format = modifier.format->text;
      std::string why;
      std::optional<CompressedModule> one =
          compress_module(group.scheme, format, modules[static_cast<std::size_t>(m)], p, why);
      if (!one) {
        size.unavailable = modules[static_cast<std::size_t>(m)].name + ": " + why;
        return size;
      }
      each.push_back(one->bytes_after);
      kinds.emplace_back(one->format, &group.scheme);
      if (one->format != "dense")
        ++formats[one->format];
      size.modules.push_back({m, c.modifier, *one});
    }
    // Owners stored alike are re-tied before saving (_retie_embeddings): one copy.
    bool alike = !kept_as_is && std::all_of(kinds.begin(), kinds.end(), [&](const auto& k) {
      return k.first == kinds.front().first && *k.second == *kinds.front().second;
    });
    if (alike)
      after += each.front();
    else
      for (std::int64_t b : each)
        after += b;
    size.bytes_after += after;
  }
  // The model is the one oneshot sees (linearize.h): the fused experts it splits are Linear
  // layers here. Any left are 3-D parameters, counted as they are: said, not guessed.
  size.caveat = fused_experts_caveat(model);
  std::sort(
      size.modules.begin(), size.modules.end(),
      [](const ModuleProjection& a, const ModuleProjection& b) { return a.module < b.module; });
  size.format = formats.empty()       ? "dense"
                : formats.size() == 1 ? formats.begin()->first
                                      : "mixed-precision";
  if (size.weights > 0) {
    size.bpw_before =
        8.0 * static_cast<double>(size.bytes_before) / static_cast<double>(size.weights);
    size.bpw_after =
        8.0 * static_cast<double>(size.bytes_after) / static_cast<double>(size.weights);
  }
  return size;
}

std::string size_line(const ProjectedCheckpoint& size) {
  if (!size.unavailable.empty())
    return "projected size: not computed (" + size.unavailable + ")";
  char line[256];
  std::snprintf(line, sizeof line,
                "projected size: %.2f -> %.4f bits per weight, %.3f MB -> %.3f MB (%lld weights, "
                "%s)",
                size.bpw_before, size.bpw_after, static_cast<double>(size.bytes_before) / 1e6,
                static_cast<double>(size.bytes_after) / 1e6, static_cast<long long>(size.weights),
                size.format.c_str());
  return size.caveat.empty() ? std::string(line) : std::string(line) + "; " + size.caveat;
}

} // namespace opscope::dialects::llmcompressor
