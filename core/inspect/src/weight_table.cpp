#include "opscope/inspect/weight_table.h"

#include "opscope/inspect/archive.h"

#include <nlohmann/json.hpp>

namespace opscope::inspect {
namespace {

// Width in bytes of the serialized ScalarTypes a weight can have; 0 for the others.
int element_size(long long dtype) {
  switch (dtype) {
  case 1:  // uint8
  case 2:  // int8
  case 12: // bool
    return 1;
  case 3:  // int16
  case 6:  // float16
  case 13: // bfloat16
    return 2;
  case 4: // int32
  case 7: // float32
    return 4;
  case 5: // int64
  case 8: // float64
    return 8;
  default:
    return 0;
  }
}

std::int64_t int_of(const nlohmann::json& v) {
  const nlohmann::json& value = v.is_object() && v.contains("as_int") ? v["as_int"] : v;
  return value.is_number_integer() ? value.get<std::int64_t>() : -1;
}

std::vector<std::int64_t> ints(const nlohmann::json& list) {
  std::vector<std::int64_t> out;
  if (list.is_array())
    for (const nlohmann::json& v : list)
      out.push_back(int_of(v));
  return out;
}

} // namespace

std::uint64_t StoredTensor::bytes_needed() const {
  constexpr std::uint64_t kUnreachable = ~std::uint64_t{0}; // more than any record holds
  for (std::int64_t size : sizes)
    if (size == 0)
      return 0;
  std::int64_t last = storage_offset, step = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &step) ||
        __builtin_add_overflow(last, step, &last))
      return kUnreachable;
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(last + 1, static_cast<std::int64_t>(element_size), &bytes))
    return kUnreachable;
  return static_cast<std::uint64_t>(bytes);
}

std::map<std::string, StoredTensor> read_weight_table(const ZipRecords& records,
                                                      const std::string& archive) {
  const std::string config = "data/weights/model_weights_config.json";
  if (!records.has(config))
    throw ArchiveError(archive + ": no " + config +
                       "; it is not a torch.export archive (export it with torch.export.save "
                       "or `" +
                       std::string(kExportHint) + "`)");
  nlohmann::json doc = nlohmann::json::parse(records.read(config), nullptr, false);
  if (!doc.is_object() || !doc.contains("config") || !doc["config"].is_object())
    throw ArchiveError(archive + ": " + config +
                       " is not the weights table torch.export writes; export the model again");
  std::map<std::string, StoredTensor> table;
  for (const auto& [name, e] : doc["config"].items()) {
    if (!e.is_object() || !e.contains("path_name") || !e["path_name"].is_string() ||
        !e.contains("tensor_meta") || !e["tensor_meta"].is_object() ||
        (e.contains("use_pickle") && e["use_pickle"] == true))
      continue;
    const nlohmann::json& meta = e["tensor_meta"];
    StoredTensor t;
    t.record = "data/weights/" + e["path_name"].get<std::string>();
    t.dtype = meta.contains("dtype") && meta["dtype"].is_number_integer()
                  ? meta["dtype"].get<long long>()
                  : 0;
    t.element_size = element_size(t.dtype);
    t.sizes = ints(meta.value("sizes", nlohmann::json()));
    t.strides = ints(meta.value("strides", nlohmann::json()));
    t.storage_offset = meta.contains("storage_offset") ? int_of(meta["storage_offset"]) : 0;
    bool valid = t.element_size > 0 && t.sizes.size() == t.strides.size() &&
                 t.storage_offset >= 0 && t.sizes.size() <= 64;
    for (std::size_t i = 0; valid && i < t.sizes.size(); ++i)
      valid = t.sizes[i] >= 0 && t.strides[i] >= 0 && t.sizes[i] < (std::int64_t{1} << 40) &&
              t.strides[i] < (std::int64_t{1} << 40);
    if (valid)
      table.emplace(name, std::move(t));
  }
  return table;
}

bool exported_weightless(const ZipRecords& records,
                         const std::map<std::string, StoredTensor>& table) {
  bool any = false;
  for (const auto& [name, t] : table) {
    if (t.bytes_needed() == 0 || !records.has(t.record))
      continue;
    if (records.declared_size(t.record) != 0)
      return false;
    any = true;
  }
  return any;
}

} // namespace opscope::inspect
