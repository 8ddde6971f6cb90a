#include "opscope/inspect/zip_records.h"

#include <zip.h>

#include <memory>

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

} // namespace

ZipRecords::ZipRecords(const std::string& path) {
  int code = 0;
  zip_ = zip_open(path.c_str(), ZIP_RDONLY, &code);
  if (!zip_)
    throw ZipRecordsError(open_error(code));
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
  return zip_name_locate(zip_, (prefix_ + name).c_str(), ZIP_FL_ENC_RAW) >= 0;
}

std::string ZipRecords::read(const std::string& name) const {
  const std::string full = prefix_ + name;
  zip_int64_t index = zip_name_locate(zip_, full.c_str(), ZIP_FL_ENC_RAW);
  if (index < 0)
    throw ZipRecordsError("no record " + name);
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(zip_, static_cast<zip_uint64_t>(index), 0, &stat) != 0 ||
      !(stat.valid & ZIP_STAT_SIZE))
    throw ZipRecordsError(std::string("cannot read record ") + name + ": " + zip_strerror(zip_));
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
