// The safetensors reader a user's checkpoint goes through: what it reads from a good file and
// folder, and that a bad header is refused with a message naming the file.
#include "safetensors_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using namespace opscope::weights;

namespace {

std::string length_prefix(std::uint64_t n) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i)
    bytes[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return bytes;
}

// A file of `header` JSON and `data` bytes, as safetensors lays it out.
std::string file_bytes(const std::string& header, const std::string& data) {
  return length_prefix(header.size()) + header + data;
}

std::string floats(std::initializer_list<float> values) {
  std::string bytes(values.size() * 4, '\0');
  std::size_t at = 0;
  for (float v : values) {
    std::memcpy(bytes.data() + at, &v, 4);
    at += 4;
  }
  return bytes;
}

class SafetensorsTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("opscope-safetensors-" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return (dir_ / name).string();
  }
  std::string refusal(const std::string& bytes) {
    const std::string path = write("model.safetensors", bytes);
    try {
      SafetensorsCheckpoint checkpoint(path);
    } catch (const SafetensorsError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(SafetensorsTest, ReadsTensorsAndMapsTheirBytes) {
  const std::string header = R"({"__metadata__":{"format":"pt"},)"
                             R"("w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
                             R"("b":{"dtype":"BF16","shape":[2],"data_offsets":[16,20]}})";
  const std::string path =
      write("model.safetensors",
            file_bytes(header, floats({1, 2, 3, 4}) + std::string("\x80\x3f\x00\x40", 4)));
  SafetensorsCheckpoint checkpoint(path);
  const CheckpointTensor w = checkpoint.find("w", {});
  EXPECT_EQ(w.tensor.dtype, "F32");
  EXPECT_EQ(w.tensor.shape, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(w.tensor.begin, 8 + header.size());
  auto bytes = checkpoint.map(w);
  ASSERT_EQ(bytes->size(), 16u);
  float third = 0;
  std::memcpy(&third, static_cast<const char*>(bytes->data()) + 8, 4);
  EXPECT_EQ(third, 3.0f);
  EXPECT_EQ(checkpoint.find("b", {}).tensor.dtype, "BF16");
}

TEST_F(SafetensorsTest, AFolderReadsTheShardsItsIndexNames) {
  write("model-00001-of-00002.safetensors",
        file_bytes(R"({"model.embed.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                   floats({1, 2})));
  write("model-00002-of-00002.safetensors",
        file_bytes(R"({"model.head.weight":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                   floats({5})));
  // Not named by the index (another format's copy of the weights): never read.
  write("consolidated.safetensors", "not a safetensors file");
  write("model.safetensors.index.json",
        R"({"metadata":{},"weight_map":{"model.embed.weight":"model-00001-of-00002.safetensors",)"
        R"("model.head.weight":"model-00002-of-00002.safetensors"}})");
  SafetensorsCheckpoint checkpoint(dir_.string());
  EXPECT_EQ(fs::path(checkpoint.find("model.head.weight", {}).file).filename(),
            "model-00002-of-00002.safetensors");
  // A tied weight saved once, under its other name.
  EXPECT_EQ(checkpoint.find("lm_head.weight", {"model.embed.weight"}).name, "model.embed.weight");
}

TEST_F(SafetensorsTest, ABaseModelsCheckpointHasNoPrefix) {
  write("model.safetensors",
        file_bytes(R"({"h.0.attn.weight":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})",
                   "abcd"));
  SafetensorsCheckpoint checkpoint(dir_.string());
  EXPECT_EQ(checkpoint.find("transformer.h.0.attn.weight", {}).name, "h.0.attn.weight");
  try {
    checkpoint.find("transformer.h.1.attn.weight", {});
    FAIL() << "a missing tensor was found";
  } catch (const SafetensorsError& e) {
    EXPECT_NE(std::string(e.what()).find("is not in the checkpoint"), std::string::npos);
  }
}

TEST_F(SafetensorsTest, AHugeHeaderLengthIsRefusedWithoutReadingIt) {
  const std::string why = refusal(length_prefix(200'000'000) + "{}");
  EXPECT_NE(why.find("model.safetensors"), std::string::npos) << why;
  EXPECT_NE(why.find("100 MB"), std::string::npos) << why;
}

TEST_F(SafetensorsTest, AHeaderPastTheFileIsRefused) {
  const std::string why = refusal(length_prefix(1000) + "{}");
  EXPECT_NE(why.find("runs past the file"), std::string::npos) << why;
}

TEST_F(SafetensorsTest, OffsetsOutOfTheFileAreRefused) {
  const std::string why = refusal(
      file_bytes(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", floats({1, 2})));
  EXPECT_NE(why.find("tensor 'w' ends at byte 16"), std::string::npos) << why;
  EXPECT_NE(why.find("truncated"), std::string::npos) << why;
}

TEST_F(SafetensorsTest, ADtypeAndShapeThatDoNotMakeTheRangeAreRefused) {
  const std::string why = refusal(
      file_bytes(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", floats({1, 2})));
  EXPECT_NE(why.find("dtype F32 and shape [3] make 12 bytes, its data_offsets 8"),
            std::string::npos)
      << why;
}

TEST_F(SafetensorsTest, AnOverflowingShapeIsRefused) {
  const std::string why = refusal(
      file_bytes(R"({"w":{"dtype":"F64","shape":[4294967296,4294967296,16],"data_offsets":[0,8]}})",
                 floats({1, 2})));
  EXPECT_NE(why.find("overflows"), std::string::npos) << why;
}

TEST_F(SafetensorsTest, AnUnknownDtypeAndBadJsonAreRefused) {
  EXPECT_NE(refusal(file_bytes(R"({"w":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}})", "x"))
                .find("dtype 'Q4'"),
            std::string::npos);
  EXPECT_NE(refusal(file_bytes(R"({"w": )", "")).find("not valid JSON"), std::string::npos);
  EXPECT_NE(
      refusal(file_bytes(std::string(100, '[') + std::string(100, ']'), "")).find("nests deeper"),
      std::string::npos);
}

TEST_F(SafetensorsTest, AnIndexPointingOutOfItsFolderIsRefused) {
  write("model.safetensors.index.json", R"({"weight_map":{"w":"../../etc/passwd"}})");
  try {
    SafetensorsCheckpoint checkpoint(dir_.string());
    FAIL() << "an index naming a file outside its folder was accepted";
  } catch (const SafetensorsError& e) {
    EXPECT_NE(std::string(e.what()).find("not a file name in this folder"), std::string::npos)
        << e.what();
  }
}

TEST_F(SafetensorsTest, AFolderWithoutCheckpointSaysWhatToDo) {
  write("config.json", "{}");
  try {
    SafetensorsCheckpoint checkpoint(dir_.string());
    FAIL() << "an empty folder was accepted";
  } catch (const SafetensorsError& e) {
    EXPECT_NE(std::string(e.what()).find("`weights:` in opscope.yaml"), std::string::npos)
        << e.what();
  }
}

} // namespace
