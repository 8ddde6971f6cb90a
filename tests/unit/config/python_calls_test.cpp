// The generic reader of Python calls (python_calls.h): keyword arguments as typed nodes,
// from_pretrained's model id, and the limits on hostile input.
#include "opscope/config/python_calls.h"

#include <gtest/gtest.h>

namespace opscope::config {
namespace {

const Node* arg(const PythonCall& call, const std::string& key) {
  for (const Entry& e : call.arguments->entries)
    if (e.key == key)
      return e.value.get();
  return nullptr;
}

TEST(PythonCalls, KeywordArgumentsAreTypedNodesWithTheirRanges) {
  const std::string text = "import peft\nmodel = AutoModel.from_pretrained('org/model', dtype=x)\n"
                           "c = peft.LoraConfig(r=8, lora_alpha=1.5, bias=None, use_dora=True,\n"
                           "    target_modules=(r'q\\.proj', \"v\"), rank_pattern={'a': 2, k: 3},\n"
                           "    layers=x.y, **rest)\nother(r=1)\n";
  PythonCalls read = read_python_calls(text, {"LoraConfig"});
  ASSERT_EQ(read.calls.size(), 1u);
  const PythonCall& c = read.calls[0];
  EXPECT_EQ(c.function, "LoraConfig");
  EXPECT_EQ(c.function_range.start.line, 2);
  EXPECT_TRUE(c.arguments->partial); // **rest
  EXPECT_EQ(arg(c, "r")->type, ScalarType::Int);
  EXPECT_EQ(arg(c, "lora_alpha")->type, ScalarType::Float);
  EXPECT_EQ(arg(c, "bias")->kind, Node::Kind::Null);
  EXPECT_EQ(arg(c, "use_dora")->type, ScalarType::Bool);
  const Node* targets = arg(c, "target_modules");
  ASSERT_EQ(targets->kind, Node::Kind::Seq);
  EXPECT_EQ(targets->items[0]->scalar, "q\\.proj");       // raw: the backslash stays
  EXPECT_EQ(targets->items[0]->range.start.byte_col, 21); // at the quote, after the r prefix
  const Node* pattern = arg(c, "rank_pattern");
  ASSERT_EQ(pattern->kind, Node::Kind::Map);
  EXPECT_EQ(pattern->entries.size(), 1u);
  EXPECT_TRUE(pattern->partial); // a computed key
  EXPECT_EQ(arg(c, "layers")->type, ScalarType::Expression);
  ASSERT_EQ(read.pretrained.size(), 1u);
  EXPECT_EQ(read.pretrained[0].text, "org/model");
  EXPECT_EQ(read.pretrained[0].owner, "AutoModel");
}

TEST(PythonCalls, AFileWithoutTheNamesIsNotParsedAndDeepNestingIsBounded) {
  EXPECT_TRUE(read_python_calls("x = 1\n", {"LoraConfig"}).calls.empty());
  std::string deep = "LoraConfig(r=" + std::string(5000, '[') + std::string(5000, ']') + ")\n";
  PythonCalls read = read_python_calls(deep, {"LoraConfig"});
  ASSERT_EQ(read.calls.size(), 1u);
  ASSERT_FALSE(read.problems.empty());
  EXPECT_EQ(read.problems[0].code, "too-deep");
}

} // namespace
} // namespace opscope::config
