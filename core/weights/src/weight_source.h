// Where opscope-weights reads a model's weights: a .pt2 archive saved with them (its weights
// table, weight_records.h) or a Hugging Face checkpoint's *.safetensors, a file or a folder
// (safetensors_reader.h), told apart by their bytes. One tensor at a time either way.
#pragma once

#include "safetensors_reader.h"
#include "weight_records.h"

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace opscope::weights {

class WeightSource {
public:
  // Throws WeightError, SafetensorsError, or the archive reader's errors.
  explicit WeightSource(const std::string& path);

  // An archive exported without its weight data (a checkpoint always has them).
  bool weightless() const;

  // The tensor the model calls `name` (or one of `aliases`: a tied weight is stored under one
  // name), contiguous. From a checkpoint it is backed by the file's pages, mapped while the
  // tensor lives. `shape`, when given, must be the stored one: a checkpoint of another model
  // is refused rather than measured.
  torch::Tensor read(const std::string& name, const std::vector<std::string>& aliases = {},
                     const std::vector<std::int64_t>& shape = {}) const;

private:
  std::unique_ptr<WeightRecords> archive_;
  std::unique_ptr<SafetensorsCheckpoint> checkpoint_;
};

} // namespace opscope::weights
