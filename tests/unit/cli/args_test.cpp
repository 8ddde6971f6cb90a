// Command-line parsing: what users type must parse, typos must be refused with a message
// that names the culprit (exit code 2 in the binary).
#include "opscope/cli/args.h"
#include "opscope/cli/model_options.h"
#include "opscope/model/model_source.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

using namespace opscope;
using namespace opscope::cli;

namespace {

CommandSpec query_like() {
  CommandSpec spec{"query", "MODEL", "test", "", model_options(true), {"MODEL"}};
  spec.options.push_back({"--op-name", "", "RE", ""});
  spec.options.push_back({"--json", "", "", ""});
  return spec;
}

std::string usage_error(const CommandSpec& spec, const std::vector<std::string>& args) {
  try {
    parse_args(spec, args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(Args, ParsesValuesFlagsAliasesAndRepeats) {
  auto parsed = parse_args(query_like(), {"m.pt2", "--op-name", "conv.*", "--json", "-i", "1x3x8x8",
                                          "--input=2x4:int64", "--mode=eager"});
  EXPECT_EQ(parsed.positionals, (std::vector<std::string>{"m.pt2"}));
  EXPECT_EQ(parsed.value("--op-name"), "conv.*");
  EXPECT_TRUE(parsed.has("--json"));
  EXPECT_EQ(parsed.all("--input"), (std::vector<std::string>{"1x3x8x8", "2x4:int64"}));
  auto settings = model_settings(parsed);
  EXPECT_EQ(settings.mode, index::Mode::Eager);
  EXPECT_TRUE(settings.mode_given);
  EXPECT_EQ(settings.inputs.size(), 2u);
}

TEST(Args, PatternsStartingWithADashAreValues) {
  auto parsed = parse_args(query_like(), {"m.pt2", "--op-name", "-x"});
  EXPECT_EQ(parsed.value("--op-name"), "-x");
}

TEST(Args, RefusesUnknownOptionsMissingValuesAndExtraArguments) {
  EXPECT_NE(usage_error(query_like(), {"m.pt2", "--op_name", "x"}).find("unknown option --op_name"),
            std::string::npos);
  EXPECT_NE(usage_error(query_like(), {"m.pt2", "--compresor", "quantizer"})
                .find("did you mean --compressor?"),
            std::string::npos);
  EXPECT_NE(usage_error(query_like(), {"m.pt2", "--op-name"}).find("--op-name needs a value"),
            std::string::npos);
  EXPECT_NE(usage_error(query_like(), {}).find("missing MODEL"), std::string::npos);
  EXPECT_NE(usage_error(query_like(), {"a", "b"}).find("unexpected argument 'b'"),
            std::string::npos);
  EXPECT_NE(usage_error(query_like(), {"a", "--json=1"}).find("takes no value"), std::string::npos);
}

TEST(Args, HelpNeedsNoPositionals) {
  auto parsed = parse_args(query_like(), {"--help"});
  EXPECT_TRUE(parsed.help);
  std::string help = help_text(query_like());
  EXPECT_NE(help.find("usage: opscope query MODEL"), std::string::npos);
  EXPECT_NE(help.find("--compressor C"), std::string::npos);
}

TEST(Args, CompressorMustExistAndSuitTheMode) {
  auto parsed = parse_args(query_like(), {"m", "--compressor", "kmeans_palettizer"});
  EXPECT_THROW(compressor_option(parsed, index::Mode::Graph), UsageError);
  EXPECT_EQ(compressor_option(parsed, index::Mode::Eager), index::Compressor::KMeansPalettizer);
  auto bad = parse_args(query_like(), {"m", "--compressor", "quantiser"});
  EXPECT_THROW(compressor_option(bad, index::Mode::Graph), UsageError);
  auto none = parse_args(query_like(), {"m"});
  EXPECT_EQ(compressor_option(none, index::Mode::Graph), index::Compressor::None);
  auto bad_mode = parse_args(query_like(), {"m", "--mode", "trace"});
  EXPECT_THROW(model_settings(bad_mode), UsageError);
}

TEST(ModelSource, ClassifiesAndExplainsBadModels) {
  auto message = [](const std::string& model) {
    try {
      model::classify(model);
    } catch (const model::ModelError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("/nonexistent/m.pt2").find("/nonexistent/m.pt2: no such file"),
            std::string::npos);
  EXPECT_NE(message("/nonexistent/model.py:build").find("/nonexistent/model.py: no such file"),
            std::string::npos);
  EXPECT_NE(message("/tmp").find("/tmp: is a folder"), std::string::npos);
  EXPECT_EQ(model::classify("some.package.module:build"), model::ModelKind::PythonTarget);

  std::string junk = ::testing::TempDir() + "/junk.bin";
  std::ofstream(junk) << "hello";
  EXPECT_NE(message(junk).find("neither a torch.export archive"), std::string::npos);
  std::string zip = ::testing::TempDir() + "/fake.pt2";
  std::ofstream(zip) << "PK\x03\x04rest";
  EXPECT_EQ(model::classify(zip), model::ModelKind::Archive);
  std::remove(junk.c_str());
  std::remove(zip.c_str());
}
