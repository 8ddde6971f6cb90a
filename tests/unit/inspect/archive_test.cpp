#include "opscope/inspect/archive.h"
#include "opscope/inspect/content_hash.h"

#include "fixtures.h"
#include "program_document.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using namespace opscope::inspect;
using opscope::inspect::testing::fixture;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string error_of(const std::string& path) {
  try {
    read_archive(path);
  } catch (const ArchiveError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ReadArchive, ReadsTheSerializedProgram) {
  Archive archive = read_archive(fixture("mymodel.pt2"));
  EXPECT_EQ(archive.model_record, "models/model.json");
  EXPECT_EQ(archive.schema_major, 8);
  EXPECT_THAT(archive.torch_version, StartsWith("2.13"));
  EXPECT_TRUE(archive.document->graph_module()["graph"].is_object());
  EXPECT_EQ(archive.content_hash, content_hash_of_file(fixture("mymodel.pt2")));
}

TEST(ReadArchive, ReadsADeflateCompressedArchive) {
  Archive archive = read_archive(fixture("deflated.pt2"));
  EXPECT_EQ(archive.model_record, "models/model.json");
  EXPECT_EQ(archive.schema_major, 8);
  EXPECT_TRUE(archive.document->graph_module()["graph"].is_object());
}

TEST(ReadArchive, MissingFile) {
  std::string message = error_of(fixture("absent.pt2"));
  EXPECT_THAT(message, StartsWith(fixture("absent.pt2") + ": no such file"));
  EXPECT_THAT(message, HasSubstr(kExportHint));
}

TEST(ReadArchive, TextFileIsNotAZip) {
  std::string message = error_of(fixture("notes.txt"));
  EXPECT_THAT(message, StartsWith(fixture("notes.txt") + ": is not a zip archive"));
  EXPECT_THAT(message, HasSubstr(kExportHint));
}

TEST(ReadArchive, StateDictSaysWhatItIs) {
  for (const char* name : {"state_dict.pt", "pickled_module.pt"}) {
    std::string message = error_of(fixture(name));
    EXPECT_THAT(message, StartsWith(fixture(name) + ": is a torch.save file (a state_dict or "
                                                    "pickled module), not a torch.export archive"));
    EXPECT_THAT(message, HasSubstr(kExportHint));
  }
  EXPECT_THAT(error_of(fixture("legacy.pt")),
              StartsWith(fixture("legacy.pt") + ": is a legacy torch.save pickle"));
}

TEST(ReadArchive, TorchScriptIsUnsupported) {
  std::string message = error_of(fixture("torchscript.pt"));
  EXPECT_THAT(message, StartsWith(fixture("torchscript.pt") + ": is a TorchScript archive"));
  EXPECT_THAT(message, HasSubstr("deprecated and not supported"));
  EXPECT_THAT(message, HasSubstr(kExportHint));
}

TEST(ReadArchive, OtherZipHasNoProgram) {
  EXPECT_THAT(error_of(fixture("plain.zip")),
              StartsWith(fixture("plain.zip") + ": is a zip archive but not a torch.export .pt2"));
}

TEST(ReadArchive, TruncatedArchive) {
  std::string message = error_of(fixture("truncated.pt2"));
  EXPECT_THAT(message, StartsWith(fixture("truncated.pt2") + ": truncated or corrupt archive ("));
  EXPECT_THAT(message, HasSubstr("export it again"));
  EXPECT_EQ(message.find('\n'), std::string::npos) << "one line, no LibTorch backtrace";
}

// LibTorch's reader skips CRC checks and would hand over the damaged bytes.
TEST(ReadArchive, DamagedRecordFailsItsCrc) {
  std::string message = error_of(fixture("crc_mismatch.pt2"));
  EXPECT_THAT(message,
              StartsWith(fixture("crc_mismatch.pt2") + ": truncated or corrupt archive ("));
  EXPECT_THAT(message, HasSubstr("models/model.json: CRC error"));
  EXPECT_THAT(message, HasSubstr("export it again"));
}

TEST(ReadArchive, CorruptGraphJson) {
  EXPECT_THAT(error_of(fixture("bad_json.pt2")),
              StartsWith(fixture("bad_json.pt2") +
                         ": models/model.json is not valid JSON (corrupt archive)"));
}

TEST(ReadArchive, UnknownSchemaMajor) {
  std::string message = error_of(fixture("schema9.pt2"));
  EXPECT_THAT(message, StartsWith(fixture("schema9.pt2") + ": ExportedProgram schema version 9."));
  EXPECT_THAT(message, HasSubstr("this opscope reads schema 8.x"));
}

// Issue 14: a 3.9 MB archive whose model.json inflates to 1 GiB took 2.1 GB of memory.
TEST(ReadArchive, ARecordOverTheSizeLimitIsRefusedBeforeInflating) {
  std::string message = error_of(fixture("spaces_1gib.pt2"));
  EXPECT_EQ(message, fixture("spaces_1gib.pt2") +
                         ": record models/model.json is too large: 1073741824 bytes (limit "
                         "536870912; set OPSCOPE_MAX_RECORD_BYTES to raise it)");
}

TEST(ReadArchive, AnImpossibleCompressionRatioIsRefused) {
  std::string message = error_of(fixture("spaces_100mib.pt2"));
  EXPECT_THAT(message, StartsWith(fixture("spaces_100mib.pt2") +
                                  ": record models/model.json is too large: 104857600 bytes "
                                  "inflated from "));
  EXPECT_THAT(message, HasSubstr("more than 200:1"));
}

// Issue 14: a central directory claiming 4 GB took 4.1 GB before failing.
TEST(ReadArchive, ADeclaredSizeIsCheckedBeforeAllocating) {
  std::string message = error_of(fixture("claims_4gb.pt2"));
  EXPECT_THAT(message, HasSubstr("record models/model.json is too large: 4026531840 bytes (limit "
                                 "536870912; set OPSCOPE_MAX_RECORD_BYTES to raise it)"));
  // Raised past the claim, the ratio still gives it away: nothing is allocated either way.
  RecordLimits raised;
  raised.max_bytes = std::uint64_t{8} << 30;
  std::string bytes;
  {
    std::ifstream in(fixture("claims_4gb.pt2"), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  try {
    read_archive_bytes(bytes, "claims_4gb.pt2", raised);
    FAIL() << "expected an error";
  } catch (const ArchiveError& e) {
    EXPECT_THAT(e.what(), HasSubstr("4026531840 bytes inflated from"));
  }
}

TEST(ReadArchive, TheLimitComesFromTheEnvironment) {
  setenv("OPSCOPE_MAX_RECORD_BYTES", "1000", 1);
  std::string message = error_of(fixture("mymodel.pt2"));
  unsetenv("OPSCOPE_MAX_RECORD_BYTES");
  EXPECT_THAT(message, HasSubstr("record models/model.json is too large: "));
  EXPECT_THAT(message, HasSubstr("(limit 1000; set OPSCOPE_MAX_RECORD_BYTES to raise it)"));
  EXPECT_EQ(error_of(fixture("mymodel.pt2")), "(no error)");
}

TEST(ReadArchive, ReadsAnArchiveInMemoryLikeTheFile) {
  std::string bytes;
  {
    std::ifstream in(fixture("mymodel.pt2"), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  Archive from_memory = read_archive_bytes(bytes, "mymodel.pt2");
  Archive from_file = read_archive(fixture("mymodel.pt2"));
  EXPECT_EQ(from_memory.content_hash, from_file.content_hash);
  EXPECT_EQ(simdjson::to_string(from_memory.document->program),
            simdjson::to_string(from_file.document->program));
}

TEST(ReadArchive, NonRegularFilesAreRefused) {
  std::string fifo = (std::filesystem::temp_directory_path() /
                      ("opscope-archive-fifo-" + std::to_string(getpid()) + ".pt2"))
                         .string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string message = error_of(fifo); // blocked forever before the fix
  std::filesystem::remove(fifo);
  EXPECT_THAT(message, StartsWith(fifo + ": is a named pipe (FIFO), not a regular file"));
  EXPECT_THAT(error_of("/dev/null"), StartsWith("/dev/null: is a device, not a regular file"));
  EXPECT_THAT(error_of(fixture("")), HasSubstr("is a directory, not a file"));
}

} // namespace
