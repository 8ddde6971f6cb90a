// Eager mode entry point: the archive's eager record -> the eager Index.
#include "opscope/inspect/eager.h"

#include "opscope/inspect/zip_records.h"

namespace opscope::inspect {
namespace {

std::string read_eager_record(const std::string& path) {
  const std::string record = "extra/" + std::string(kEagerRecordName);
  try {
    ZipRecords zip(path);
    if (!zip.has(record))
      throw EagerRecordError(path + ": has no eager-mode record (" + record +
                             "): eager op names come from running the model, which `opscope "
                             "export` does when it writes the archive; export it again with "
                             "`opscope export TARGET --input ... -o " +
                             path + "`, or use --mode graph");
    return zip.read(record);
  } catch (const ZipRecordsError& e) {
    throw EagerRecordError(path + ": cannot read the eager-mode record (" + std::string(e.what()) +
                           "); export the model again");
  }
}

} // namespace

index::Index build_eager_index(const Archive& archive) {
  index::Index idx = build_eager_index_from_record(read_eager_record(archive.path), archive.path);
  idx.provenance.archive = archive.path;
  idx.provenance.archive_hash = archive.content_hash;
  if (!archive.torch_version.empty())
    idx.provenance.torch_version = archive.torch_version;
  return idx;
}

} // namespace opscope::inspect
