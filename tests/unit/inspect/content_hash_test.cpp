#include "opscope/inspect/content_hash.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using opscope::inspect::content_hash_of_bytes;
using opscope::inspect::content_hash_of_file;

// The cache under ~/.cache/opscope is keyed by this value: it must not drift.
TEST(ContentHash, IsStableAcrossReleases) {
  EXPECT_EQ(content_hash_of_bytes("", 0), content_hash_of_bytes("", 0));
  EXPECT_EQ(content_hash_of_bytes("", 0).size(), 16u);
  const std::string text = "opscope content hash";
  EXPECT_EQ(content_hash_of_bytes(text.data(), text.size()), "ac547f340f647e91");
}

TEST(ContentHash, ChangesWithAnyByteOrLength) {
  std::string a(1000, 'a');
  std::string b = a;
  b[537] = 'b';
  EXPECT_NE(content_hash_of_bytes(a.data(), a.size()), content_hash_of_bytes(b.data(), b.size()));
  std::string zeros(8, '\0');
  EXPECT_NE(content_hash_of_bytes(zeros.data(), 8), content_hash_of_bytes(zeros.data(), 7));
}

TEST(ContentHash, FileMatchesBytesAcrossReadChunks) {
  // Larger than the 1 MiB read buffer and not a multiple of 8.
  std::string data(3 * 1024 * 1024 + 5, '\0');
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<char>((i * 131) % 251);
  auto path = std::filesystem::temp_directory_path() / "opscope_content_hash_test.bin";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
  }
  EXPECT_EQ(content_hash_of_file(path.string()), content_hash_of_bytes(data.data(), data.size()));
  std::filesystem::remove(path);
}

TEST(ContentHash, UnreadableFileThrowsNamingIt) {
  try {
    content_hash_of_file("/nonexistent/opscope.pt2");
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/opscope.pt2"), std::string::npos);
  }
}

} // namespace
