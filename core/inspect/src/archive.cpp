#include "opscope/inspect/archive.h"

#include "opscope/inspect/content_hash.h"
#include "opscope/inspect/eager.h"
#include "opscope/inspect/zip_records.h"
#include "opscope/support/regular_file.h"
#include "program_document.h"
#include "untraced_index.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <vector>

namespace opscope::inspect {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw ArchiveError(path + ": " + what);
}

// What the first bytes say the file is, before the zip reader looks at it.
enum class Magic { Zip, Pickle, Other };

Magic sniff(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::array<unsigned char, 4> head{};
  in.read(reinterpret_cast<char*>(head.data()), head.size());
  auto got = in.gcount();
  if (got >= 4 && head[0] == 'P' && head[1] == 'K' &&
      ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6)))
    return Magic::Zip;
  // Legacy (pre-1.6) torch.save writes a raw pickle: protocol opcode 0x80.
  if (got >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5)
    return Magic::Pickle;
  return Magic::Other;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The record holding the serialized ExportedProgram. torch.export.save writes
// `models/model.json`; package_pt2 with several programs writes
// `models/<name>.json` (we take `model` if present, else the first).
std::optional<std::string> find_model_record(const std::vector<std::string>& records) {
  std::optional<std::string> first;
  for (const auto& r : records) {
    if (r == "models/model.json")
      return r;
    if (!first && starts_with(r, "models/") && ends_with(r, ".json") &&
        r.find('/', 7) == std::string::npos)
      first = r;
  }
  return first;
}

bool has_record(const std::vector<std::string>& records, const std::string& name) {
  return std::find(records.begin(), records.end(), name) != records.end();
}

bool has_prefix(const std::vector<std::string>& records, const std::string& prefix) {
  return std::any_of(records.begin(), records.end(),
                     [&](const std::string& r) { return starts_with(r, prefix); });
}

std::string not_an_export_archive(const std::vector<std::string>& records) {
  const std::string fix = std::string("export the model with `") + kExportHint + "`";
  if (has_prefix(records, "code/") && has_record(records, "constants.pkl"))
    return "is a TorchScript archive; TorchScript is deprecated and not supported (coreai-opt "
           "compresses torch.export programs); " +
           fix;
  if (has_record(records, "data.pkl"))
    return "is a torch.save file (a state_dict or pickled module), not a torch.export archive; " +
           fix;
  return "is a zip archive but not a torch.export .pt2 (no models/*.json inside); " + fix;
}

} // namespace

namespace {

// The model.json record -> the parsed program and the facts an index records.
void read_program(const ZipRecords& zip, const std::string& path, Archive& archive) {
  const std::string again = std::string("; export it again with `") + kExportHint + "`";
  std::string text;
  auto record = find_model_record(zip.names());
  // `opscope export --mode eager` skips torch.export (eager mode reads only its record):
  // such an archive has no program, and graph mode says so (unlifted_graph).
  if (!record && has_record(zip.names(), "extra/" + std::string(kEagerRecordName)))
    return;
  // An hf: model torch.export could not trace: its module names and state only.
  if (!record && has_record(zip.names(), kUntracedRecord))
    return;
  if (!record)
    fail(path, not_an_export_archive(zip.names()));
  archive.model_record = *record;
  try {
    text = zip.read(*record);
  } catch (const RecordTooLarge& e) {
    fail(path, e.what());
  } catch (const ZipRecordsError& e) {
    fail(path, std::string("truncated or corrupt archive (") + e.what() + ")" + again);
  } catch (const std::bad_alloc&) {
    fail(path, "out of memory reading " + *record + " (" +
                   std::to_string(zip.declared_size(*record)) +
                   " bytes): free memory or raise the memory limit (ulimit -v)");
  }

  auto document = std::make_shared<ProgramDocument>();
  archive.document = document;
  simdjson::dom::object program;
  auto error = document->parser.parse(text).get(document->program);
  // What went wrong is not always the file: say "out of memory" when it is memory.
  if (error == simdjson::MEMALLOC)
    fail(path, "out of memory parsing " + *record + " (" + std::to_string(text.size()) +
                   " bytes): free memory or raise the memory limit (ulimit -v)");
  if (error == simdjson::CAPACITY)
    fail(path, *record + " is too large to parse (" + std::to_string(text.size()) + " bytes)");
  if (error || document->program.get(program))
    fail(path, archive.model_record + " is not valid JSON (corrupt archive)" + again);

  simdjson::dom::object version, graph_module;
  if (program["schema_version"].get(version) || program["graph_module"].get(graph_module) ||
      program["schema_version"]["major"].error())
    fail(path, archive.model_record +
                   " is not a serialized ExportedProgram (no schema_version or graph_module)" +
                   again);
  auto number_or_zero = [](simdjson::dom::element e) {
    int64_t n = 0;
    return e.get(n) ? 0 : static_cast<int>(n);
  };
  archive.schema_major = number_or_zero(version["major"].value());
  archive.schema_minor = version["minor"].error() ? 0 : number_or_zero(version["minor"].value());
  std::string_view torch_version;
  if (!program["torch_version"].get(torch_version))
    archive.torch_version = torch_version;
  if (archive.schema_major != kKnownSchemaMajor)
    fail(path, "ExportedProgram schema version " + std::to_string(archive.schema_major) + "." +
                   std::to_string(archive.schema_minor) + " (torch " +
                   (archive.torch_version.empty() ? "unknown" : archive.torch_version) +
                   ") is not supported; this opscope reads schema " +
                   std::to_string(kKnownSchemaMajor) +
                   ".x (torch 2.13): export with that torch or update opscope");
}

} // namespace

namespace {

// `text` as one shell word: as it is when it holds only safe characters, else single-quoted.
std::string shell_word(const std::string& text) {
  const bool safe = !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("/._-+:=@%,").find(c) != std::string_view::npos;
  });
  if (safe)
    return text;
  std::string quoted = "'";
  for (char c : text)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

} // namespace

std::string export_both_modes_hint(const std::string& archive) {
  return "export it again for both modes with `opscope export TARGET --input SPEC --mode graph "
         "--mode eager -o " +
         shell_word(archive) +
         "` (TARGET and one --input SPEC per forward() argument: the model and inputs it was "
         "exported with)";
}

Archive read_archive(const std::string& path) {
  if (auto problem = support::regular_file_problem(path)) {
    if (*problem == "no such file")
      fail(path, "no such file; create it with `" + std::string(kExportHint) + "`");
    fail(path, *problem + "; pass the .pt2 file written by `" + std::string(kExportHint) + "`");
  }

  switch (sniff(path)) {
  case Magic::Zip:
    break;
  case Magic::Pickle:
    fail(path,
         "is a legacy torch.save pickle, not a torch.export archive; export the model with `" +
             std::string(kExportHint) + "`");
  case Magic::Other:
    fail(path, "is not a zip archive (a .pt2 from torch.export.save is one); export the model "
               "with `" +
                   std::string(kExportHint) + "`");
  }

  Archive archive;
  archive.path = path;
  try {
    archive.content_hash = content_hash_of_file(path);
  } catch (const std::exception&) {
    fail(path, "cannot be read; check its permissions");
  }
  try {
    archive.records = std::make_shared<ZipRecords>(path);
  } catch (const ZipRecordsError& e) {
    fail(path, std::string("truncated or corrupt archive (") + e.what() +
                   "); export it again with `" + kExportHint + "`");
  }
  read_program(*archive.records, path, archive);
  return archive;
}

Archive read_archive_bytes(std::string_view bytes, const std::string& name, RecordLimits limits) {
  Archive archive;
  archive.path = name;
  archive.content_hash = content_hash_of_bytes(bytes.data(), bytes.size());
  try {
    archive.records = std::make_shared<ZipRecords>(bytes, limits);
  } catch (const ZipRecordsError& e) {
    fail(name, std::string("truncated or corrupt archive (") + e.what() + ")");
  }
  read_program(*archive.records, name, archive);
  return archive;
}

} // namespace opscope::inspect
