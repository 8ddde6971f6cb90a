#include "opscope/support/cache_dir.h"
#include "opscope/support/file_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace opscope::support {
namespace {
namespace fs = std::filesystem;

class FileCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("opscope-file-cache-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    path_ = (dir_ / "opscope.yaml").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& text, bool old) {
    std::ofstream(path_) << text;
    if (old) // as if written long ago: settled, so kept
      fs::last_write_time(path_, fs::file_time_type::clock::now() - std::chrono::hours(1));
  }
  fs::path dir_;
  std::string path_;
};

TEST_F(FileCacheTest, ASettledFileIsReadOncePerChange) {
  FileCache<int> cache;
  int reads = 0;
  auto read = [&](const std::string&) { return ++reads; };
  write("model: a.pt2\n", true);
  EXPECT_EQ(cache.get(path_, read), 1);
  EXPECT_EQ(cache.get(path_, read), 1);
  write("model: bb.pt2\n", true); // another size
  EXPECT_EQ(cache.get(path_, read), 2);
  EXPECT_EQ(cache.get(path_, read), 2);
}

// A file written within the timestamp's granularity could change again unseen: read it
// every time until it settles.
TEST_F(FileCacheTest, AFreshlyWrittenFileIsReadEveryTime) {
  FileCache<int> cache;
  int reads = 0;
  auto read = [&](const std::string&) { return ++reads; };
  write("model: a.pt2\n", false);
  EXPECT_EQ(cache.get(path_, read), 1);
  EXPECT_EQ(cache.get(path_, read), 2);
}

TEST_F(FileCacheTest, EachCacheIsItsOwn) {
  write("model: a.pt2\n", true);
  FileCache<std::string> first, second;
  EXPECT_EQ(first.get(path_, [](const std::string&) { return std::string("one"); }), "one");
  EXPECT_EQ(second.get(path_, [](const std::string&) { return std::string("two"); }), "two");
  EXPECT_EQ(first.get(path_, [](const std::string&) { return std::string("three"); }), "one");
}

TEST(CacheDir, FollowsXdgThenHome) {
  std::string saved_xdg = std::getenv("XDG_CACHE_HOME") ? std::getenv("XDG_CACHE_HOME") : "";
  std::string saved_home = std::getenv("HOME") ? std::getenv("HOME") : "";
  ::setenv("XDG_CACHE_HOME", "/x/cache", 1);
  EXPECT_EQ(cache_dir(), "/x/cache/opscope");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(cache_dir(), "/home/u/.cache/opscope");
  if (saved_xdg.empty())
    ::unsetenv("XDG_CACHE_HOME");
  else
    ::setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  ::setenv("HOME", saved_home.c_str(), 1);
}

} // namespace
} // namespace opscope::support
