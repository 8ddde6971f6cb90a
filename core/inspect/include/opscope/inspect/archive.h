// Reading a torch.export `.pt2` archive: the serialized ExportedProgram graph
// (JSON) and the facts about the file that an index records. Graph mode and
// eager mode both start from an `Archive`.
#pragma once

#include "opscope/index/index.h"
#include "opscope/inspect/zip_records.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace opscope::inspect {

// models/model.json parsed (core/inspect/src/program_document.h: simdjson stays private).
struct ProgramDocument;

// A file that cannot be inspected. `what()` is one line for the user:
// "PATH: what is wrong; what to do".
class ArchiveError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// The schema_version major of the ExportedProgram JSON this build understands.
inline constexpr int kKnownSchemaMajor = 8;

struct Archive {
  std::string path;          // as given by the user
  std::string content_hash;  // content_hash_of_file(path)
  std::string model_record;  // record holding the graph, e.g. "model/models/model.json"
  std::string torch_version; // "2.13.0+cpu"
  int schema_major = 0;
  int schema_minor = 0;
  // The whole model.json document, parsed with simdjson (nlohmann's DOM took a
  // fifth of a run). Elements and strings read from it point into it, and it lives
  // as long as the Archive.
  std::shared_ptr<const ProgramDocument> document;
  // The open container, for the records read later (eager mode's record).
  std::shared_ptr<const ZipRecords> records;
};

// Opens and parses the archive. Throws ArchiveError for a missing file, a file
// that is not a zip, a torch.save'd state_dict or pickled module, a TorchScript
// archive, a truncated or corrupt archive, or an unknown schema version.
// Refuses files that are not regular (a FIFO would block); record sizes are capped by
// RecordLimits::from_environment() (OPSCOPE_MAX_RECORD_BYTES).
Archive read_archive(const std::string& path);

// The same from an archive in memory (the fuzzers); `bytes` must outlive the Archive, and
// `name` stands for the path in messages.
Archive read_archive_bytes(std::string_view bytes, const std::string& name,
                           RecordLimits limits = {});

// Throws ArchiveError when a built index breaks a rule the loaders enforce (validate.h: for
// example modules nested deeper than any real model), so a hostile archive fails here, once,
// with a message about the model, instead of producing an index every later read refuses.
// Needs the index's lookups built.
void require_indexable(const index::Index& built, const std::string& origin);

// The command that makes the right kind of file, for error messages.
inline constexpr const char* kExportHint =
    "opscope export package.module:factory --input 1x3x224x224 -o model.pt2";

// "export it again for both modes with `opscope export TARGET --input SPEC --mode graph --mode
// eager -o ARCHIVE` (...)": one archive with the program and the eager record, so neither
// mode is lost. TARGET and SPEC are placeholders (the archive does not say how it was made);
// ARCHIVE is `archive`, quoted for a shell when it needs to be.
std::string export_both_modes_hint(const std::string& archive);

} // namespace opscope::inspect
