// Completion and hover from coreai-opt's models: what the user sees under `op_state_spec:
// weight:` and at `dtype:`.
#include "opscope/features/schema_completion.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace opscope::features {
namespace {

CompletionList complete_at(const std::string& text, config::Position at) {
  return schema_complete(config::read_config(text, config::Format::Yaml), at, *schema::builtin());
}

const CompletionItem* find(const CompletionList& list, const std::string& label) {
  auto it = std::find_if(list.items.begin(), list.items.end(),
                         [&](const CompletionItem& i) { return i.label == label; });
  return it == list.items.end() ? nullptr : &*it;
}

TEST(SchemaCompletion, UnderAStateSpecTheSpecFieldsWithTheirDocs) {
  std::string text = "quantization_config:\n  global_config:\n    op_state_spec:\n      weight:\n"
                     "        qscheme: symmetric\n        \n";
  CompletionList list = complete_at(text, {5, 8});
  for (const char* field : {"dtype", "granularity", "qformulation", "scale_dtype"}) {
    const CompletionItem* item = find(list, field);
    ASSERT_NE(item, nullptr) << field;
    EXPECT_EQ(item->kind, CompletionItem::Kind::Field);
  }
  EXPECT_EQ(find(list, "qscheme"), nullptr); // already written
  EXPECT_NE(find(list, "dtype")->documentation.find("Default when left out: `\"int8\"`"),
            std::string::npos);
}

TEST(SchemaCompletion, AtDtypeTheValuesCoreaiOptAccepts) {
  std::string text = "quantization_config:\n  global_config:\n    op_state_spec:\n      weight:\n"
                     "        dtype: \n";
  CompletionList list = complete_at(text, {4, 15});
  EXPECT_NE(find(list, "int4"), nullptr);
  EXPECT_NE(find(list, "float8_e4m3fn"), nullptr);
  EXPECT_EQ(find(list, "int9"), nullptr);
  EXPECT_EQ(find(list, "float32"), nullptr); // a torch dtype coreai-opt refuses
}

TEST(SchemaCompletion, ARegistryTypeOffersTheRegisteredNames) {
  std::string text = "quantization_config:\n  global_config:\n    op_state_spec:\n      weight:\n"
                     "        granularity: {type: per}\n";
  CompletionList list = complete_at(text, {4, 31});
  EXPECT_NE(find(list, "per_channel"), nullptr);
  EXPECT_NE(find(list, "per_block"), nullptr);
}

TEST(SchemaHover, AKeyShowsItsDocumentationAndDefault) {
  std::string text = "kmeans_palettization_config:\n  global_config:\n    op_state_spec:\n"
                     "      weight: {n_bits: 2}\n";
  auto doc = config::read_config(text, config::Format::Yaml);
  auto h = schema_hover(doc, {3, 17}, *schema::builtin());
  ASSERT_TRUE(h.has_value());
  EXPECT_NE(h->markdown.find("n_bits"), std::string::npos);
  EXPECT_NE(h->markdown.find("Default when left out: `4`"), std::string::npos);
  EXPECT_EQ(h->range.start.line, 3);
}

} // namespace
} // namespace opscope::features
