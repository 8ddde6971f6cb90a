// A Hugging Face checkpoint's *.safetensors, read in place: each file's header (8 bytes of
// little-endian length, then that much JSON naming every tensor's dtype, shape and byte range)
// is checked against the file, and a tensor's bytes are mapped from the file only while it is
// measured, so a model never sits in memory whole. No LibTorch here (the fuzzer and the
// sanitizer build read headers without it); weight_source.h makes tensors of the mapped bytes.
//
// A checkpoint is a .safetensors file, or a folder: the files its model.safetensors.index.json
// names (weight_map), else model.safetensors, else every *.safetensors in it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::weights {

// One line naming the file and what to do.
class SafetensorsError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// safetensors' own bound (MAX_HEADER_SIZE in the Rust crate and the Python package).
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

struct SafetensorsTensor {
  std::string dtype; // as written: F32, F16, BF16, F64, I8, ...
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0; // from the start of the file (header and its length included)
  std::uint64_t end = 0;
};

struct SafetensorsHeader {
  std::uint64_t data_start = 0; // 8 + the header's length
  std::map<std::string, SafetensorsTensor> tensors;
};

// Bytes one element of a safetensors dtype takes; nothing for a dtype this reader does not know.
std::optional<std::uint64_t> safetensors_element_size(std::string_view dtype);

// The header's length from the first 8 bytes of a file of `file_size` bytes; throws when it is
// past the bound or the file.
std::uint64_t safetensors_header_length(std::string_view first8, std::uint64_t file_size,
                                        const std::string& file);

// The header (`json`, the bytes after the length) of a file of `file_size` bytes: every tensor
// must have a known dtype, a shape whose element count times the dtype's size is its byte range,
// and a range inside the file. Throws SafetensorsError.
SafetensorsHeader parse_safetensors_header(std::string_view json, std::uint64_t file_size,
                                           const std::string& file);

// model.safetensors.index.json's weight_map: tensor name -> file name (a plain name in the
// same folder: no path separators). Throws SafetensorsError.
std::map<std::string, std::string> parse_safetensors_index(std::string_view json,
                                                           const std::string& file);

// A tensor's bytes, mapped from its file (read-only copy-on-write pages: nothing written
// reaches the file); unmapped when the last holder lets go.
class MappedBytes {
public:
  MappedBytes(void* mapping, std::size_t mapping_size, const void* data, std::size_t size);
  ~MappedBytes();
  MappedBytes(const MappedBytes&) = delete;
  MappedBytes& operator=(const MappedBytes&) = delete;
  const void* data() const { return data_; }
  std::size_t size() const { return size_; }

private:
  void* mapping_;
  std::size_t mapping_size_;
  const void* data_;
  std::size_t size_;
};

struct CheckpointTensor {
  std::string name; // as the checkpoint names it
  std::string file;
  SafetensorsTensor tensor;
};

class SafetensorsCheckpoint {
public:
  // `path`: a .safetensors file or a folder holding some. Throws SafetensorsError.
  explicit SafetensorsCheckpoint(const std::string& path);

  // The checkpoint's tensor for a model parameter: its name, else one of its other names (a
  // tied weight is saved once), else the name without its first part (a checkpoint of the base
  // model, `model.` / `transformer.` left off). Throws SafetensorsError naming what was looked
  // for and where.
  CheckpointTensor find(const std::string& name, const std::vector<std::string>& aliases) const;

  // Its bytes, mapped. Throws SafetensorsError when the file changed since its header was read.
  std::shared_ptr<const MappedBytes> map(const CheckpointTensor& t) const;

  const std::string& path() const { return path_; }

private:
  void add_file(const std::string& file);

  std::string path_;
  // name -> the files holding it (more than one: which is meant is not known)
  std::map<std::string, std::vector<CheckpointTensor>> tensors_;
  // file -> why it cannot be read (the index names it, but it is missing or damaged)
  std::map<std::string, std::string> unreadable_;
  std::map<std::string, std::string> missing_by_index_; // tensor -> file the index names
};

} // namespace opscope::weights
