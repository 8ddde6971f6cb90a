#include "weight_records.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace opscope::weights {
namespace {

// torch/_export/serde/schema.py ScalarType -> c10.
std::optional<c10::ScalarType> scalar_type(long long serialized) {
  switch (serialized) {
  case 1:
    return c10::ScalarType::Byte;
  case 2:
    return c10::ScalarType::Char;
  case 3:
    return c10::ScalarType::Short;
  case 4:
    return c10::ScalarType::Int;
  case 5:
    return c10::ScalarType::Long;
  case 6:
    return c10::ScalarType::Half;
  case 7:
    return c10::ScalarType::Float;
  case 8:
    return c10::ScalarType::Double;
  case 12:
    return c10::ScalarType::Bool;
  case 13:
    return c10::ScalarType::BFloat16;
  default:
    return std::nullopt;
  }
}

} // namespace

WeightRecords::WeightRecords(const std::string& archive)
    : archive_(archive), records_(archive), table_(inspect::read_weight_table(records_, archive)) {}

torch::Tensor WeightRecords::read(const std::string& name) const {
  auto it = table_.find(name);
  if (it == table_.end())
    throw WeightError("'" + name + "' is not stored as a plain tensor in " + archive_);
  const inspect::StoredTensor& t = it->second;
  const std::optional<c10::ScalarType> dtype = scalar_type(t.dtype);
  if (!dtype)
    throw WeightError("'" + name + "' has a dtype (" + std::to_string(t.dtype) +
                      ") this worker does not read");
  const auto options = torch::TensorOptions().dtype(*dtype);
  const std::uint64_t needed = t.bytes_needed();
  if (needed == 0)
    return torch::empty(t.sizes, options);
  if (!records_.has(t.record))
    throw WeightError("'" + name + "': its record " + t.record + " is missing from " + archive_);
  if (records_.declared_size(t.record) < needed)
    throw WeightError("'" + name + "': its record " + t.record + " holds " +
                      std::to_string(records_.declared_size(t.record)) +
                      " bytes, the tensor needs " + std::to_string(needed) +
                      " (a weightless or damaged archive)");
  // The record's bytes become the tensor's storage: a weight that fills its record
  // contiguously (what torch.export saves for a parameter) is not copied a second time, which
  // on GPT-2's 154 MB embedding is the difference between 2 and 3 times its size at peak.
  auto bytes = std::make_shared<std::string>(records_.read(t.record));
  const auto elements = static_cast<std::int64_t>(bytes->size() / c10::elementSize(*dtype));
  torch::Tensor storage = torch::from_blob(
      bytes->data(), {elements}, [bytes](void*) mutable { bytes.reset(); }, options);
  torch::Tensor view = storage.as_strided(t.sizes, t.strides, t.storage_offset);
  const bool whole_record = t.storage_offset == 0 && view.numel() == elements;
  if (whole_record && view.is_contiguous() &&
      reinterpret_cast<std::uintptr_t>(bytes->data()) % c10::elementSize(*dtype) == 0)
    return view;
  return view.clone(at::MemoryFormat::Contiguous);
}

} // namespace opscope::weights
