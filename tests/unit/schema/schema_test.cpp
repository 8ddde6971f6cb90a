// The dump reader: the built-in copy, and dumps that are damaged or hostile.
#include "opscope/schema/schema.h"

#include <gtest/gtest.h>

namespace opscope::schema {
namespace {

std::string error_of(std::string_view text) {
  auto parsed = parse(text);
  auto* error = std::get_if<std::string>(&parsed);
  return error ? *error : std::string();
}

TEST(SchemaDump, BuiltinIsCoreaiOpt040WithItsThreeCompressors) {
  std::shared_ptr<const Schema> s = builtin();
  EXPECT_EQ(s->coreai_opt_version, "0.4.0");
  ASSERT_NE(s->root("quantization_config"), nullptr);
  EXPECT_EQ(s->root("quantization_config")->model, "QuantizerConfig");
  EXPECT_EQ(s->root("kmeans_palettization_config")->spec_key, "palettization_spec");
  ASSERT_NE(s->root("magnitude_pruning_config"), nullptr);
  const Model* spec = s->model("QuantizationSpec");
  ASSERT_NE(spec, nullptr);
  const Field* dtype = spec->field("dtype");
  ASSERT_NE(dtype, nullptr);
  EXPECT_TRUE(dtype->type.accepts_enum("int4"));
  EXPECT_TRUE(dtype->type.accepts_enum("float8_e4m3")); // coreai-opt's alias
  EXPECT_FALSE(dtype->type.accepts_enum("int9"));
  EXPECT_EQ(dtype->default_text, "\"int8\"");
  EXPECT_FALSE(spec->field("granularity")->doc.empty() && spec->doc.empty());
  EXPECT_TRUE(s->dtypes.at("int8").lut);
  EXPECT_FALSE(s->dtypes.at("int4").lut);
  EXPECT_EQ(s->dtypes.at("float8_e4m3").canonical, "float8_e4m3fn");
  const Field* n_bits = s->model("PalettizationSpec")->field("n_bits");
  ASSERT_EQ(n_bits->type.kind, Type::Kind::Literal);
  EXPECT_EQ(n_bits->type.literals.size(), 6u);
}

TEST(SchemaDump, DamagedDumpsAreRefusedWithTheReason) {
  EXPECT_NE(error_of("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("[]").find("format"), std::string::npos);
  EXPECT_NE(
      error_of(R"({"format":"opscope-coreai-schema/1","models":{},"roots":{}})").find("coreai_opt"),
      std::string::npos);
  std::string bad_root = R"({"format":"opscope-coreai-schema/1","coreai_opt":"1","models":{},
                             "roots":{"quantization_config":{"model":"Nope"}}})";
  EXPECT_NE(error_of(bad_root).find("`Nope` is not in `models`"), std::string::npos);
  std::string bad_field = R"({"format":"opscope-coreai-schema/1","coreai_opt":"1","roots":{},
                              "models":{"M":{"fields":[{"name":"x","type":{"kind":"dict"}}]}}})";
  EXPECT_NE(error_of(bad_field).find("models.M.x.type: missing `key`"), std::string::npos);
}

TEST(SchemaDump, HostileSizesAndDepthsAreRefusedBeforeParsing) {
  std::string deep(kMaxDumpNesting + 1, '[');
  EXPECT_NE(error_of(deep).find("nests deeper"), std::string::npos);
  std::string huge(kMaxDumpBytes + 1, ' ');
  EXPECT_NE(error_of(huge).find("larger than"), std::string::npos);
}

TEST(SchemaDump, AnUnknownTypeKindFromANewerDumpAcceptsAnything) {
  auto parsed = parse(R"({"format":"opscope-coreai-schema/1","coreai_opt":"9.0","roots":{},
      "models":{"M":{"fields":[{"name":"x","type":{"kind":"quaternion"}}]}}})");
  auto* s = std::get_if<std::shared_ptr<const Schema>>(&parsed);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ((*s)->model("M")->field("x")->type.kind, Type::Kind::Any);
}

} // namespace
} // namespace opscope::schema
