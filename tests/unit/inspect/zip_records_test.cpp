// LibTorch stays the judge of the container format: the worker reads archives
// with ZipRecords (libzip) instead of loading LibTorch, so here both readers
// must see the same records with the same bytes, and reject the same damage.
#include "opscope/inspect/zip_records.h"

#include "fixtures.h"

#include <c10/util/Exception.h>
#include <caffe2/serialize/inline_container.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using namespace opscope::inspect;
using opscope::inspect::testing::fixture;

std::string torch_record(caffe2::serialize::PyTorchStreamReader& reader, const std::string& name) {
  auto [data, size] = reader.getRecord(name);
  return std::string(static_cast<const char*>(data.get()), size);
}

class ZipRecordsAgreeWithLibTorch : public ::testing::TestWithParam<const char*> {};

TEST_P(ZipRecordsAgreeWithLibTorch, SameRecordNamesAndBytes) {
  const std::string path = fixture(GetParam());
  caffe2::serialize::PyTorchStreamReader torch_reader(path);
  ZipRecords ours(path);
  ASSERT_EQ(ours.names(), torch_reader.getAllRecords());
  ASSERT_FALSE(ours.names().empty());
  for (const std::string& name : ours.names()) {
    EXPECT_TRUE(ours.has(name)) << name;
    EXPECT_EQ(ours.read(name), torch_record(torch_reader, name)) << name;
  }
  EXPECT_FALSE(ours.has("models/absent.json"));
  EXPECT_THROW(ours.read("models/absent.json"), ZipRecordsError);
}

// Every kind of zip the worker meets: export archives (incl. rewritten ones: a
// cut model.json, deflate-compressed records), torch.save files and TorchScript.
INSTANTIATE_TEST_SUITE_P(Fixtures, ZipRecordsAgreeWithLibTorch,
                         ::testing::Values("mymodel.pt2", "resnet_like.pt2", "multi_output.pt2",
                                           "buffer_update_decomposed.pt2", "schema9.pt2",
                                           "bad_json.pt2", "deflated.pt2", "state_dict.pt",
                                           "pickled_module.pt", "torchscript.pt", "plain.zip"));

TEST(ZipRecordsAgreeWithLibTorch, ModelJsonIsByteIdentical) {
  const std::string path = fixture("mymodel.pt2");
  caffe2::serialize::PyTorchStreamReader torch_reader(path);
  std::string ours = ZipRecords(path).read("models/model.json");
  EXPECT_EQ(ours, torch_record(torch_reader, "models/model.json"));
  EXPECT_THAT(ours, ::testing::HasSubstr("\"graph_module\""));
}

// Damage both readers refuse: a file cut in half, a file that is no zip, and
// zips whose entries do not all live under one `<name>/` folder.
TEST(ZipRecordsAgreeWithLibTorch, BothRejectDamagedContainers) {
  for (const char* name : {"truncated.pt2", "notes.txt", "flat.zip"}) {
    const std::string path = fixture(name);
    EXPECT_THROW(caffe2::serialize::PyTorchStreamReader{path}, c10::Error) << name;
    EXPECT_THROW(ZipRecords{path}, ZipRecordsError) << name;
  }
  const std::string mixed = fixture("two_folders.zip");
  EXPECT_THROW(caffe2::serialize::PyTorchStreamReader(mixed).getAllRecords(), c10::Error);
  EXPECT_THROW(ZipRecords{mixed}, ZipRecordsError);
}

TEST(ZipRecords, ErrorsAreOneLine) {
  try {
    ZipRecords zip(fixture("truncated.pt2"));
    FAIL() << "a truncated archive opened";
  } catch (const ZipRecordsError& e) {
    EXPECT_STREQ(e.what(), "no zip central directory at the end of the file");
  }
}

} // namespace
