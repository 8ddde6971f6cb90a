// The editor's work on a model's real weights, as any dialect asks it (measurements.h,
// rewrites.h): a measurement an edit leaves unchanged is answered from the kept result without
// starting the worker (seconds each), a failed one is tried again, a rewritten weights file is
// measured again, and the answers always say which revision their numbers are of.
#include "measurements.h"
#include "rewrites.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace opscope::lsp {
namespace {

namespace fs = std::filesystem;

// A dialect's measurement of `what` that counts how often it ran.
class CountingMeasurement final : public dialects::Measurement {
public:
  CountingMeasurement(std::string what, std::shared_ptr<int> runs, bool keep = true)
      : what_(std::move(what)), runs_(std::move(runs)), keep_(keep) {}
  std::string prepare() override { return what_; }
  std::shared_ptr<const void> run(const dialects::WeightsWorker&,
                                  std::chrono::milliseconds) override {
    ++*runs_;
    return std::make_shared<const std::string>(what_ + " measured");
  }
  std::shared_ptr<const void> reuse(const std::shared_ptr<const void>& kept) override {
    return std::make_shared<const std::string>(*static_cast<const std::string*>(kept.get()) +
                                               ", reused");
  }
  bool keeps(const std::shared_ptr<const void>&) const override { return keep_; }

private:
  std::string what_;
  std::shared_ptr<int> runs_;
  bool keep_;
};

class MeasurementsTest : public ::testing::Test {
protected:
  void SetUp() override {
    weights_ = (fs::temp_directory_path() /
                ("opscope-measurements-" + std::to_string(::getpid()) + ".safetensors"))
                   .string();
    std::ofstream(weights_) << "weights";
  }
  void TearDown() override { fs::remove(weights_); }

  // Runs the io loop until `uri` has had `count` measurements delivered.
  void deliver(std::size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (delivered_.size() < count && std::chrono::steady_clock::now() < deadline) {
      io_.restart();
      io_.run_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(delivered_.size(), count);
  }
  std::string result(std::uint64_t revision) const {
    std::optional<dialects::Measured> state = measurements_.state(kUri, revision);
    if (!state || !state->result)
      return "";
    return *static_cast<const std::string*>(state->result.get());
  }

  static constexpr const char* kUri = "file:///w/quant.yaml";
  boost::asio::io_context io_;
  Logger log_{LogLevel::Error};
  std::vector<std::string> delivered_;
  Measurements measurements_{io_, log_,
                             [this](const std::string& uri) { delivered_.push_back(uri); }};
  std::string weights_;
  std::shared_ptr<int> runs_ = std::make_shared<int>(0);
};

TEST_F(MeasurementsTest, AnEditThatMeasuresTheSameIsAnsweredFromTheKeptResult) {
  measurements_.update(kUri, 1, weights_, std::make_unique<CountingMeasurement>("int8", runs_));
  std::optional<dialects::Measured> under_way = measurements_.state(kUri, 1);
  ASSERT_TRUE(under_way);
  EXPECT_TRUE(under_way->measuring); // the lens says "computing…"
  EXPECT_FALSE(under_way->current);
  deliver(1);
  EXPECT_EQ(result(1), "int8 measured");
  EXPECT_TRUE(measurements_.state(kUri, 1)->current);
  EXPECT_FALSE(measurements_.state(kUri, 1)->measuring);
  EXPECT_FALSE(measurements_.state(kUri, 2)->current) << "revision 1's numbers are not 2's";

  measurements_.update(kUri, 2, weights_, std::make_unique<CountingMeasurement>("int8", runs_));
  deliver(2);
  EXPECT_EQ(*runs_, 1) << "the same measurement on the same weights ran the worker again";
  EXPECT_EQ(result(2), "int8 measured, reused");
  EXPECT_TRUE(measurements_.state(kUri, 2)->current);

  measurements_.update(kUri, 3, weights_, std::make_unique<CountingMeasurement>("int4", runs_));
  deliver(3);
  EXPECT_EQ(*runs_, 2);
  EXPECT_EQ(result(3), "int4 measured");
}

TEST_F(MeasurementsTest, AResultTheDialectDoesNotKeepIsMeasuredAgain) {
  for (std::uint64_t revision = 1; revision <= 2; ++revision) {
    measurements_.update(kUri, revision, weights_,
                         std::make_unique<CountingMeasurement>("int8", runs_, false));
    deliver(revision);
  }
  EXPECT_EQ(*runs_, 2) << "a failed worker must be asked again after the next edit";
}

TEST_F(MeasurementsTest, RewrittenWeightsAreMeasuredAgain) {
  measurements_.update(kUri, 1, weights_, std::make_unique<CountingMeasurement>("int8", runs_));
  deliver(1);
  std::ofstream(weights_) << "other weights, saved again";
  measurements_.update(kUri, 2, weights_, std::make_unique<CountingMeasurement>("int8", runs_));
  deliver(2);
  EXPECT_EQ(*runs_, 2) << "numbers of the old weights were shown for the new ones";
}

TEST_F(MeasurementsTest, AClosedDocumentGetsNothing) {
  measurements_.update(kUri, 1, weights_, std::make_unique<CountingMeasurement>("int8", runs_));
  measurements_.forget(kUri);
  io_.restart();
  io_.run_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(measurements_.state(kUri, 1));
}

// A dialect's rewriting that counts how often it ran.
class CountingRewriting final : public dialects::Rewriting {
public:
  explicit CountingRewriting(std::shared_ptr<int> runs) : runs_(std::move(runs)) {}
  std::vector<dialects::Rewrite> run(const dialects::WeightsWorker&, std::chrono::milliseconds,
                                     std::string&) override {
    ++*runs_;
    return {{"opscope: propose a config for 6 bits per weight", "6 bits", "", {}, "new text\n"}};
  }

private:
  std::shared_ptr<int> runs_;
};

TEST_F(MeasurementsTest, ARevisionsRewritesAreComputedOnceAndOfferedForItOnly) {
  Rewrites rewrites(io_, log_);
  int model = 0; // the loaded model's identity
  rewrites.want(kUri);
  rewrites.update(kUri, 1, weights_, &model, std::make_unique<CountingRewriting>(runs_));
  EXPECT_TRUE(rewrites.pending(kUri, 1)); // a disabled action says so meanwhile
  // Asked again for the same revision (every code action request asks): not computed twice.
  rewrites.update(kUri, 1, weights_, &model, std::make_unique<CountingRewriting>(runs_));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (rewrites.pending(kUri, 1) && std::chrono::steady_clock::now() < deadline) {
    io_.restart();
    io_.run_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(*runs_, 1);
  ASSERT_EQ(rewrites.offers(kUri, 1).size(), 1u);
  EXPECT_EQ(rewrites.offers(kUri, 1)[0].text, "new text\n");
  EXPECT_TRUE(rewrites.offers(kUri, 2).empty()) << "revision 1's rewrite offered on revision 2";
  EXPECT_TRUE(rewrites.wanted(kUri));
}

} // namespace
} // namespace opscope::lsp
