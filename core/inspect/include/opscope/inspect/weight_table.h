// The weight tensors a .pt2 archive stores: data/weights/model_weights_config.json names, for
// each parameter and buffer (FQN), the record holding its storage and the tensor's dtype,
// sizes, strides and storage offset (torch/_export/serde/schema.py TensorMeta); each record
// holds raw little-endian storage bytes. No LibTorch: the weight-error worker
// (core/weights) views the bytes as tensors, and `opscope-inspect --stores-weights` answers
// whether there are any without loading it.
#pragma once

#include "opscope/inspect/zip_records.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace opscope::inspect {

struct StoredTensor {
  std::string record;   // "data/weights/weight_0"
  long long dtype = 0;  // the serialized ScalarType (7: float32, 13: bfloat16, ...)
  int element_size = 0; // bytes
  std::vector<std::int64_t> sizes, strides;
  std::int64_t storage_offset = 0;
  // Bytes of storage the view reaches (0 for an empty tensor).
  std::uint64_t bytes_needed() const;
};

// FQN -> tensor, for the entries stored as raw storage (pickled tensor subclasses and dtypes
// of unknown width are left out). Throws ArchiveError (archive.h) naming `archive` when the
// weights table is missing or malformed.
std::map<std::string, StoredTensor> read_weight_table(const ZipRecords& records,
                                                      const std::string& archive);

// Whether the archive was exported weightless (opscope export's default: fake tensors, no
// data): every tensor with elements is stored in an empty record, and there is one at least.
bool exported_weightless(const ZipRecords& records,
                         const std::map<std::string, StoredTensor>& table);

} // namespace opscope::inspect
