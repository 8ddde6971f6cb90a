#include "opscope/inspect/archive.h"
#include "opscope/inspect/content_hash.h"

#include "fixtures.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
  EXPECT_TRUE(archive.graph_module()["graph"].is_object());
  EXPECT_EQ(archive.content_hash, content_hash_of_file(fixture("mymodel.pt2")));
}

TEST(ReadArchive, ReadsADeflateCompressedArchive) {
  Archive archive = read_archive(fixture("deflated.pt2"));
  EXPECT_EQ(archive.model_record, "models/model.json");
  EXPECT_EQ(archive.schema_major, 8);
  EXPECT_TRUE(archive.graph_module()["graph"].is_object());
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

} // namespace
