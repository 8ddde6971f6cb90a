#include "state_tensors.h"

#include "lenient_json.h"
#include "opscope/inspect/eager.h"
#include "program_document.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <unordered_map>

namespace opscope::inspect {
namespace {

using namespace lenient_json;

// Bounds a hostile archive or record: torch allows 64 dimensions, and no real tensor comes
// near 2^48 elements (so sizes in bits stay inside 64 bits).
constexpr std::size_t kMaxRank = 64;
constexpr std::int64_t kMaxElements = std::int64_t{1} << 48;

// Empty when the shape is out of bounds.
bool shape_in_bounds(const std::vector<std::int64_t>& shape) {
  if (shape.size() > kMaxRank)
    return false;
  std::int64_t elements = 1;
  for (std::int64_t d : shape) {
    if (d < 0 || d > kMaxElements || (d != 0 && elements > kMaxElements / d))
      return false;
    elements *= d;
  }
  return true;
}

// The weights config: FQN -> the weight file holding it (tied tensors share one file).
std::unordered_map<std::string, std::string> weight_files(const Archive& archive) {
  std::unordered_map<std::string, std::string> files;
  if (!archive.records)
    return files;
  const std::string record = "data/weights/model_weights_config.json";
  try {
    if (!archive.records->has(record))
      return files;
    nlohmann::json config =
        nlohmann::json::parse(archive.records->read(record), nullptr, /*allow_exceptions=*/false);
    if (!config.is_object() || !config.contains("config") || !config["config"].is_object())
      return files;
    for (const auto& [name, entry] : config["config"].items())
      if (entry.is_object() && entry.contains("path_name") && entry["path_name"].is_string())
        files.emplace(name, entry["path_name"].get<std::string>());
  } catch (const std::exception&) {
    // Tying is a refinement: an unreadable weights config leaves every name its own tensor.
    files.clear();
  }
  return files;
}

} // namespace

std::string dtype_name(long long scalar_type) {
  switch (scalar_type) {
  case 1:
    return "uint8";
  case 2:
    return "int8";
  case 3:
    return "int16";
  case 4:
    return "int32";
  case 5:
    return "int64";
  case 6:
    return "float16";
  case 7:
    return "float32";
  case 8:
    return "float64";
  case 9:
    return "complex32";
  case 10:
    return "complex64";
  case 11:
    return "complex128";
  case 12:
    return "bool";
  case 13:
    return "bfloat16";
  case 28:
    return "uint16";
  case 29:
    return "float8_e4m3fn";
  case 30:
    return "float8_e5m2";
  case 31:
    return "float8_e4m3fnuz";
  case 32:
    return "float8_e5m2fnuz";
  case 33:
    return "float8_e8m0fnu";
  case 34:
    return "uint32";
  case 35:
    return "uint64";
  default:
    return "";
  }
}

std::vector<index::Parameter> graph_parameters(const Archive& archive) {
  std::vector<index::Parameter> out;
  if (!archive.document)
    return out;
  element gm = archive.document->graph_module();
  auto graph = member(gm, "graph");
  auto signature = member(gm, "signature");
  if (!graph || !signature)
    return out;
  auto tensor_values = member(*graph, "tensor_values");
  const auto files = weight_files(archive);
  std::unordered_map<std::string, std::size_t> by_file;
  for (element spec : elements_of(member(*signature, "input_specs"))) {
    bool is_buffer = has(spec, "buffer");
    auto body = member(spec, is_buffer ? "buffer" : "parameter");
    if (!body)
      continue;
    std::string name(text_of(*body, is_buffer ? "buffer_name" : "parameter_name"));
    std::string_view arg = text_of(member(*body, "arg"), "name");
    if (name.empty())
      continue;
    if (auto file = files.find(name); file != files.end() && !is_buffer) {
      auto [tied, first] = by_file.emplace(file->second, out.size());
      if (!first) {
        out[tied->second].aliases.push_back(name);
        continue;
      }
    }
    index::Parameter p;
    p.name = std::move(name);
    p.buffer = is_buffer;
    if (tensor_values && !arg.empty()) {
      if (auto meta = member(*tensor_values, arg)) {
        std::int64_t dtype = 0;
        if (!(*meta)["dtype"].get(dtype))
          p.dtype = dtype_name(dtype);
        for (element size : elements_of(member(*meta, "sizes"))) {
          std::int64_t d = 0;
          if (size["as_int"].get(d)) {
            // A symbolic size (dynamic shapes): the size is unknown, said as an empty dtype.
            p.shape.clear();
            p.dtype.clear();
            break;
          }
          p.shape.push_back(d);
        }
      }
    }
    if (!shape_in_bounds(p.shape))
      throw ArchiveError(archive.path + ": " + archive.model_record + " gives state '" + p.name +
                         "' a shape out of bounds; export the model again "
                         "with `" +
                         kExportHint + "`");
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<index::Parameter> record_parameters(const nlohmann::json& record,
                                                const std::string& origin) {
  std::vector<index::Parameter> out;
  auto found = record.find("parameters");
  if (found == record.end())
    return out;
  for (const auto& entry : *found) {
    index::Parameter p;
    p.name = entry.at("name").get<std::string>();
    if (auto aliases = entry.find("aliases"); aliases != entry.end())
      p.aliases = aliases->get<std::vector<std::string>>();
    p.shape = entry.at("shape").get<std::vector<std::int64_t>>();
    p.dtype = entry.at("dtype").get<std::string>();
    p.buffer = entry.value("buffer", false);
    if (!shape_in_bounds(p.shape))
      throw EagerRecordError(origin + ": the eager record gives state '" + p.name +
                             "' a shape out of bounds; re-export the model with this opscope");
    out.push_back(std::move(p));
  }
  return out;
}

} // namespace opscope::inspect
