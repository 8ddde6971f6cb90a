// The records of a PyTorch zip container (.pt2, torch.save, TorchScript), read
// with libzip the way LibTorch's caffe2::serialize::PyTorchStreamReader reads
// them: every entry lives under one `<archive name>/` folder, and records are
// named without it ("models/model.json"). The worker uses this instead of
// LibTorch because loading LibTorch alone cost 0.15 s and 100 MB per run;
// tests/unit/inspect checks the two readers agree on the fixture archives.
//
// An archive is hostile until bounded: a record's declared size and compression ratio are
// checked before anything is inflated (a 4 MB zip can claim 4 GB, or inflate to 1 GiB).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

typedef struct zip zip_t;
struct zip_source;
struct zip_error;

namespace opscope::inspect {

// The container is not a readable zip, or a record is missing or damaged.
// `what()` is one short line without the path, e.g. "Not a zip archive".
class ZipRecordsError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A record larger than the limit, or inflating far beyond any real archive: not corrupt,
// refused. `what()` says how large, the limit and how to raise it.
class RecordTooLarge : public ZipRecordsError {
public:
  using ZipRecordsError::ZipRecordsError;
};

struct RecordLimits {
  // torch.export writes model.json uncompressed; a 96-layer GPT's is about 60 MB.
  static constexpr std::uint64_t kDefaultMaxBytes = std::uint64_t{512} << 20;
  // Deflate tops out near 1032:1 (runs of one byte); JSON compresses about 10:1, and
  // torch.export stores records uncompressed (1:1).
  static constexpr std::uint64_t kMaxRatio = 200;
  // Small records may compress as well as they like.
  static constexpr std::uint64_t kRatioFloorBytes = std::uint64_t{1} << 20;

  std::uint64_t max_bytes = kDefaultMaxBytes;

  // OPSCOPE_MAX_RECORD_BYTES (a byte count) overrides the default.
  static RecordLimits from_environment();
};

class ZipRecords {
public:
  // Throws ZipRecordsError; refuses paths that are not regular files.
  explicit ZipRecords(const std::string& path,
                      RecordLimits limits = RecordLimits::from_environment());
  // An archive already in memory; `bytes` must outlive this object.
  ZipRecords(std::string_view bytes, RecordLimits limits);
  ~ZipRecords();
  ZipRecords(const ZipRecords&) = delete;
  ZipRecords& operator=(const ZipRecords&) = delete;

  // Record names in the archive's order, without the `<archive name>/` prefix.
  const std::vector<std::string>& names() const { return names_; }
  bool has(const std::string& name) const;
  // The record's size once inflated, as its header declares it; throws ZipRecordsError.
  std::uint64_t declared_size(const std::string& name) const;
  // The record's bytes, CRC-checked; throws ZipRecordsError, RecordTooLarge, or
  // std::bad_alloc when the (allowed) size cannot be allocated.
  std::string read(const std::string& name) const;

private:
  void open_source(zip_source* source, zip_error& error);
  void read_names();
  std::int64_t locate(const std::string& name) const;

  zip_t* zip_ = nullptr;
  RecordLimits limits_;
  std::uint64_t archive_bytes_ = 0; // the container's size: no record is stored in more
  std::string prefix_;              // "<archive name>/"
  std::vector<std::string> names_;
};

} // namespace opscope::inspect
