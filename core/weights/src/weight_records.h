// An archive's weight tensors as LibTorch tensors, one at a time (inspect/weight_table.h says
// where each is stored).
#pragma once

#include "opscope/inspect/weight_table.h"
#include "opscope/inspect/zip_records.h"

#include <torch/torch.h>

#include <map>
#include <stdexcept>
#include <string>

namespace opscope::weights {

class WeightError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class WeightRecords {
public:
  // Throws ZipRecordsError (not a zip) or ArchiveError (no weights table).
  explicit WeightRecords(const std::string& archive);

  bool weightless() const { return inspect::exported_weightless(records_, table_); }

  // The tensor, contiguous, in its own memory: the record's bytes when the tensor fills them,
  // else a copy of its view of them.
  // Throws WeightError for a name not stored as raw storage, a record shorter than the view,
  // or a dtype LibTorch does not know here.
  torch::Tensor read(const std::string& name) const;

private:
  std::string archive_;
  inspect::ZipRecords records_;
  std::map<std::string, inspect::StoredTensor> table_;
};

} // namespace opscope::weights
