// Eager mode entry point: the archive's eager record -> the eager Index.
#include "opscope/inspect/eager.h"

#include "opscope/inspect/zip_records.h"

#include "module_objects.h"
#include "untraced_index.h"

#include <memory>

namespace opscope::inspect {
namespace {

std::string read_eager_record(const Archive& archive) {
  const std::string& path = archive.path;
  const std::string record = "extra/" + std::string(kEagerRecordName);
  try {
    std::shared_ptr<const ZipRecords> zip = archive.records;
    if (!zip)
      zip = std::make_shared<ZipRecords>(path);
    if (!zip->has(record))
      // Written by `opscope export` without --mode eager, or by plain torch.export.save.
      throw EagerRecordError(path + ": has no eager-mode record (" + record +
                             "): it was exported for graph mode only; " +
                             export_both_modes_hint(path) + ", or use --mode graph");
    return zip->read(record);
  } catch (const RecordTooLarge& e) {
    throw EagerRecordError(path + ": " + e.what());
  } catch (const ZipRecordsError& e) {
    throw EagerRecordError(path + ": cannot read the eager-mode record (" + std::string(e.what()) +
                           "); export the model again");
  }
}

} // namespace

index::Index build_eager_index(const Archive& archive) {
  if (is_untraced(archive))
    return build_untraced_index(archive, index::Mode::Eager);
  index::Index idx = build_eager_index_from_record(read_eager_record(archive), archive.path);
  // Eager names are canonical already (hooks on named_modules()); the names still match keys.
  idx.module_objects = archive_module_objects(archive);
  if (!idx.module_objects.empty()) {
    idx.rebuild_lookups();
    require_indexable(idx, archive.path);
  }
  idx.provenance.archive = archive.path;
  idx.provenance.archive_hash = archive.content_hash;
  if (!archive.torch_version.empty())
    idx.provenance.torch_version = archive.torch_version;
  return idx;
}

} // namespace opscope::inspect
