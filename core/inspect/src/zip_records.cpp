#include "opscope/inspect/zip_records.h"

#include "opscope/support/regular_file.h"

#include <zip.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <unistd.h>

namespace opscope::inspect {
namespace {

std::string open_error(int code) {
  // libzip says "Not a zip archive" for a zip cut short; say what that means here.
  if (code == ZIP_ER_NOZIP)
    return "no zip central directory at the end of the file";
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

std::string open_error(zip_error_t* error) {
  return open_error(zip_error_code_zip(error));
}

} // namespace

RecordLimits RecordLimits::from_environment() {
  RecordLimits limits;
  if (const char* text = std::getenv("OPSCOPE_MAX_RECORD_BYTES"); text && *text) {
    char* end = nullptr;
    unsigned long long value = std::strtoull(text, &end, 10);
    if (end && *end == '\0' && value > 0)
      limits.max_bytes = value;
  }
  return limits;
}

ZipRecords::ZipRecords(const std::string& path, RecordLimits limits) : limits_(limits) {
  int fd = -1;
  try {
    support::RegularFile file(path);
    archive_bytes_ = file.size();
    fd = file.release();
  } catch (const support::FileReadError& e) {
    // Its message is "PATH: problem"; ours never names the path (see ZipRecordsError).
    std::string what = e.what();
    throw ZipRecordsError(what.size() > path.size() + 2 ? what.substr(path.size() + 2) : what);
  }
  FILE* stream = ::fdopen(fd, "rb");
  if (!stream) {
    ::close(fd);
    throw ZipRecordsError("cannot read the file");
  }
  zip_error_t error;
  zip_error_init(&error);
  // The source owns the stream from here: freeing it closes the file.
  zip_source_t* source = zip_source_filep_create(stream, 0, -1, &error);
  if (!source) {
    std::fclose(stream);
    std::string text = open_error(&error);
    zip_error_fini(&error);
    throw ZipRecordsError(text);
  }
  open_source(source, error);
}

ZipRecords::ZipRecords(std::string_view bytes, RecordLimits limits)
    : limits_(limits), archive_bytes_(bytes.size()) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (!source) {
    std::string text = open_error(&error);
    zip_error_fini(&error);
    throw ZipRecordsError(text);
  }
  open_source(source, error);
}

// Opens the archive from `source` (a file or a buffer); `error` was initialised by the caller.
void ZipRecords::open_source(zip_source_t* source, zip_error_t& error) {
  zip_ = zip_open_from_source(source, ZIP_RDONLY, &error);
  if (!zip_) {
    zip_source_free(source);
    std::string text = open_error(&error);
    zip_error_fini(&error);
    throw ZipRecordsError(text);
  }
  zip_error_fini(&error);
  read_names();
}

void ZipRecords::read_names() {
  try {
    zip_int64_t count = zip_get_num_entries(zip_, 0);
    if (count <= 0)
      throw ZipRecordsError("archive does not contain any files");
    names_.reserve(static_cast<std::size_t>(count));
    for (zip_int64_t i = 0; i < count; ++i) {
      const char* raw = zip_get_name(zip_, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
      if (!raw)
        throw ZipRecordsError(zip_strerror(zip_));
      std::string name = raw;
      // Like PyTorchStreamReader: the first entry's folder names the archive, and
      // every record must live in it.
      if (i == 0) {
        auto slash = name.find('/');
        if (slash == std::string::npos)
          throw ZipRecordsError("file in archive is not in a subdirectory: " + name);
        prefix_ = name.substr(0, slash + 1);
      }
      if (name.compare(0, prefix_.size(), prefix_) != 0)
        throw ZipRecordsError("file in archive is not in a subdirectory " + prefix_ + ": " + name);
      names_.push_back(name.substr(prefix_.size()));
    }
  } catch (...) {
    zip_discard(zip_);
    throw;
  }
}

ZipRecords::~ZipRecords() {
  zip_discard(zip_);
}

bool ZipRecords::has(const std::string& name) const {
  return locate(name) >= 0;
}

std::int64_t ZipRecords::locate(const std::string& name) const {
  return zip_name_locate(zip_, (prefix_ + name).c_str(), ZIP_FL_ENC_RAW);
}

std::uint64_t ZipRecords::declared_size(const std::string& name) const {
  zip_int64_t index = locate(name);
  if (index < 0)
    throw ZipRecordsError("no record " + name);
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(zip_, static_cast<zip_uint64_t>(index), 0, &stat) != 0 ||
      !(stat.valid & ZIP_STAT_SIZE))
    throw ZipRecordsError(std::string("cannot read record ") + name + ": " + zip_strerror(zip_));
  return stat.size;
}

std::string ZipRecords::read(const std::string& name) const {
  zip_int64_t index = locate(name);
  if (index < 0)
    throw ZipRecordsError("no record " + name);
  zip_stat_t stat;
  zip_stat_init(&stat);
  constexpr zip_uint64_t kNeeded = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD;
  if (zip_stat_index(zip_, static_cast<zip_uint64_t>(index), 0, &stat) != 0 ||
      (stat.valid & kNeeded) != kNeeded)
    throw ZipRecordsError(std::string("cannot read record ") + name + ": " + zip_strerror(zip_));
  // The declared sizes, checked before a byte is allocated or inflated.
  if (stat.size > limits_.max_bytes)
    throw RecordTooLarge("record " + name + " is too large: " + std::to_string(stat.size) +
                         " bytes (limit " + std::to_string(limits_.max_bytes) +
                         "; set OPSCOPE_MAX_RECORD_BYTES to raise it)");
  if (stat.comp_size > archive_bytes_)
    throw ZipRecordsError("cannot read record " + name + ": its header claims " +
                          std::to_string(stat.comp_size) + " stored bytes in a " +
                          std::to_string(archive_bytes_) + "-byte archive");
  if (stat.comp_method == ZIP_CM_STORE && stat.comp_size != stat.size)
    throw ZipRecordsError("cannot read record " + name +
                          ": stored uncompressed, but its header "
                          "gives two different sizes");
  if (stat.size > RecordLimits::kRatioFloorBytes &&
      stat.size / RecordLimits::kMaxRatio > stat.comp_size)
    throw RecordTooLarge("record " + name + " is too large: " + std::to_string(stat.size) +
                         " bytes inflated from " + std::to_string(stat.comp_size) + " (more than " +
                         std::to_string(RecordLimits::kMaxRatio) +
                         ":1, beyond any real archive; a zip bomb?)");
  std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> file(
      zip_fopen_index(zip_, static_cast<zip_uint64_t>(index), 0), zip_fclose);
  if (!file)
    throw ZipRecordsError(std::string("cannot read record ") + name + ": " + zip_strerror(zip_));
  std::string data(static_cast<std::size_t>(stat.size), '\0');
  zip_uint64_t done = 0;
  while (done < stat.size) {
    zip_int64_t got = zip_fread(file.get(), data.data() + done, stat.size - done);
    if (got < 0)
      throw ZipRecordsError(std::string("cannot read record ") + name + ": " +
                            zip_file_strerror(file.get()));
    if (got == 0)
      break;
    done += static_cast<zip_uint64_t>(got);
  }
  if (done != stat.size)
    throw ZipRecordsError("cannot read record " + name + ": it is shorter than its header says");
  // Reading past the end makes libzip check the CRC.
  char extra;
  zip_int64_t past_end = zip_fread(file.get(), &extra, 1);
  if (past_end < 0)
    throw ZipRecordsError(std::string("cannot read record ") + name + ": " +
                          zip_file_strerror(file.get()));
  if (past_end > 0)
    throw ZipRecordsError("cannot read record " + name + ": it is longer than its header says");
  return data;
}

} // namespace opscope::inspect
