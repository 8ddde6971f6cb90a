#include "annotations.h"
#include "opscope/features/completion.h"
#include "small_model.h"

#include <gtest/gtest.h>

using namespace opscope;
using namespace opscope::features;
using opscope::testing::Annotations;

namespace {

struct Fixture {
  index::Index index = opscope::testing::small_resnet();
  Model model{&index, index::Compressor::Quantizer};

  CompletionList complete_at(const std::string& annotated, config::Format format,
                             CompletionOptions options = {}) {
    Annotations a(annotated);
    return complete(config::read_config(a.code(), format), a.point(), &model, options);
  }
};

const CompletionItem* find(const CompletionList& list, const std::string& label) {
  for (const auto& item : list.items)
    if (item.label == label)
      return &item;
  return nullptr;
}

} // namespace

TEST(Completion, ModuleNamesAreEscapedRegexesWithTheirType) {
  Fixture f;
  CompletionList list = f.complete_at(R"(quantization_config:
  module_name_configs:
    lay^
)",
                                      config::Format::Yaml);
  const CompletionItem* item = find(list, "layer1.0.conv1");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->detail, "torch.nn.modules.conv.Conv2d");
  EXPECT_EQ(item->edit.new_text, "layer1\\.0\\.conv1");
  EXPECT_EQ(item->filter_text, "layer1\\.0\\.conv1")
      << "filtered as written: a typed escape matches";
  EXPECT_EQ(item->edit.range, (config::Range{{2, 4}, {2, 7}}));
  EXPECT_EQ(find(list, ""), nullptr) << "the root module has no name to offer";
  EXPECT_FALSE(list.is_incomplete);
}

TEST(Completion, SortTextKeepsTheServersOrder) {
  // Clients sort by sortText: sorted that way, the list must stay in the ranked order.
  Fixture f;
  CompletionList list = f.complete_at(R"(quantization_config:
  module_name_configs:
    ^
)",
                                      config::Format::Yaml);
  ASSERT_GT(list.items.size(), 5u);
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    EXPECT_EQ(list.items[i].sort_text.size(), 6u);
    if (i > 0) {
      EXPECT_LT(list.items[i - 1].sort_text, list.items[i].sort_text);
    }
  }
  EXPECT_EQ(list.items[0].sort_text, "000000");
  EXPECT_EQ(list.items[5].sort_text, "000005");
}

TEST(Completion, AnOpenedQuoteIsReplacedAndEscapedForItsQuoting) {
  Fixture f;
  const std::string json = R"({"quantization_config": {"module_name_configs": {"layer1.^"}}})";
  CompletionList list = f.complete_at(json, config::Format::Json);
  const CompletionItem* item = find(list, "layer1.0");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->edit.new_text, "\"layer1\\\\.0\"") << "a JSON string doubles the backslash";
  EXPECT_EQ(item->edit.range, (config::Range{{0, 49}, {0, 58}})) << "both quotes are replaced";
  EXPECT_EQ(item->filter_text, "\"layer1\\\\.0")
      << "as written in the opened quote, without the closing one";

  list = f.complete_at("quantization_config:\n  module_name_configs:\n    'lay^\n",
                       config::Format::Yaml);
  item = find(list, "layer1.0");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->edit.new_text, "'layer1\\.0'");
  EXPECT_EQ(item->edit.range, (config::Range{{2, 4}, {2, 8}}));
}

TEST(Completion, ModuleTypesAreFullyQualifiedWithCounts) {
  Fixture f;
  CompletionList list = f.complete_at(R"(quantization_config:
  module_type_configs:
    ^
)",
                                      config::Format::Yaml);
  const CompletionItem* item = find(list, "torch.nn.modules.conv.Conv2d");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->detail, "3 modules");
  EXPECT_EQ(item->edit.new_text, "torch.nn.modules.conv.Conv2d") << "types are exact, not regexes";
}

TEST(Completion, OpTypesAreThoseTheCompressorRegisters) {
  Fixture f;
  CompletionList list = f.complete_at(R"(quantization_config:
  global_config:
    op_type_config:
      ^
)",
                                      config::Format::Yaml);
  ASSERT_NE(find(list, "conv2d"), nullptr);
  EXPECT_EQ(find(list, "conv2d")->detail, "3 ops");
  EXPECT_NE(find(list, "linear"), nullptr);
  EXPECT_EQ(find(list, "relu"), nullptr);

  f.model.compressor = index::Compressor::KMeansPalettizer;
  list = f.complete_at(
      "kmeans_palettization_config:\n  global_config:\n    op_type_config:\n      ^\n",
      config::Format::Yaml);
  EXPECT_EQ(find(list, "add"), nullptr) << "the palettizer does not register add";
}

TEST(Completion, OpNamesAreRestrictedToTheEnclosingScope) {
  Fixture f;
  f.model.compressor = index::Compressor::None;
  CompletionList list = f.complete_at(R"(quantization_config:
  module_name_configs:
    layer1\.0:
      op_name_config:
        ^
)",
                                      config::Format::Yaml);
  ASSERT_EQ(list.items.size(), 2u);
  EXPECT_EQ(list.items[0].label, "conv2d_1");
  EXPECT_EQ(list.items[0].detail, "conv2d in layer1.0.conv1");
  EXPECT_EQ(list.items[1].label, "relu");

  list = f.complete_at(R"(quantization_config:
  module_type_configs:
    models.resnet.BasicBlock:
      op_name_config:
        ^
)",
                       config::Format::Yaml);
  EXPECT_EQ(list.items.size(), 4u); // conv2d_1, relu, conv2d_2, add
  EXPECT_EQ(find(list, "linear"), nullptr);
}

TEST(Completion, LargeListsAreCappedAndNarrowedToWhatIsTyped) {
  Fixture f;
  CompletionOptions options;
  options.max_items = 2;
  CompletionList list = f.complete_at("quantization_config:\n  module_name_configs:\n    ^\n",
                                      config::Format::Yaml, options);
  EXPECT_EQ(list.items.size(), 2u);
  EXPECT_TRUE(list.is_incomplete);

  list = f.complete_at("quantization_config:\n  module_name_configs:\n    layer1\\.1^\n",
                       config::Format::Yaml, options);
  ASSERT_EQ(list.items.size(), 2u);
  EXPECT_EQ(list.items[0].label, "layer1.1");
  EXPECT_EQ(list.items[1].label, "layer1.1.conv1");
}

TEST(Completion, WithoutAModelPatternKeysAreIncompleteButFieldsWork) {
  Annotations a("quantization_config:\n  module_name_configs:\n    ^\n");
  CompletionList list =
      complete(config::read_config(a.code(), config::Format::Yaml), a.point(), nullptr);
  EXPECT_TRUE(list.items.empty());
  EXPECT_TRUE(list.is_incomplete);

  Annotations b("quantization_config:\n  mod^\n");
  list = complete(config::read_config(b.code(), config::Format::Yaml), b.point(), nullptr);
  ASSERT_NE(find(list, "module_name_configs"), nullptr);
  EXPECT_EQ(find(list, "module_name_configs")->kind, CompletionItem::Kind::Field);
}
