// The records of a PyTorch zip container (.pt2, torch.save, TorchScript), read
// with libzip the way LibTorch's caffe2::serialize::PyTorchStreamReader reads
// them: every entry lives under one `<archive name>/` folder, and records are
// named without it ("models/model.json"). The worker uses this instead of
// LibTorch because loading LibTorch alone cost 0.15 s and 100 MB per run;
// tests/unit/inspect checks the two readers agree on the fixture archives.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

typedef struct zip zip_t;

namespace opscope::inspect {

// The container is not a readable zip, or a record is missing or damaged.
// `what()` is one short line without the path, e.g. "Not a zip archive".
class ZipRecordsError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class ZipRecords {
public:
  explicit ZipRecords(const std::string& path); // throws ZipRecordsError
  ~ZipRecords();
  ZipRecords(const ZipRecords&) = delete;
  ZipRecords& operator=(const ZipRecords&) = delete;

  // Record names in the archive's order, without the `<archive name>/` prefix.
  const std::vector<std::string>& names() const { return names_; }
  bool has(const std::string& name) const;
  // The record's bytes, CRC-checked; throws ZipRecordsError.
  std::string read(const std::string& name) const;

private:
  zip_t* zip_ = nullptr;
  std::string prefix_; // "<archive name>/"
  std::vector<std::string> names_;
};

} // namespace opscope::inspect
