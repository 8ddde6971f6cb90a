#include "opscope/inspect/node_metadata.h"

#include <gtest/gtest.h>

namespace {

using namespace opscope::inspect;
using opscope::index::ModuleContext;

// The examples of coreai-opt's normalize_module_fqn docstring, and more.
TEST(NormalizeModuleFqn, MatchesCoreaiOpt) {
  EXPECT_EQ(normalize_module_fqn("model.layers.0.norm"), "model.layers.0.norm");
  EXPECT_EQ(normalize_module_fqn("L['self'].model"), "model");
  EXPECT_EQ(normalize_module_fqn("L['fn'].model"), "model");
  EXPECT_EQ(normalize_module_fqn("L['args'][0].model.layers[0]"), "model.layers.0");
  EXPECT_EQ(normalize_module_fqn("_modules['model']._modules['layers']._modules['0']"),
            "model.layers.0");
  EXPECT_EQ(normalize_module_fqn("layers.0"), "layers.0");
  EXPECT_EQ(normalize_module_fqn(""), "");
  EXPECT_EQ(normalize_module_fqn("L['self'].blocks[12].attn"), "blocks.12.attn");
  // Only the first prefix goes; brackets that are not indices stay.
  EXPECT_EQ(normalize_module_fqn("L['self'].L['self'].a"), "L['self'].a");
  EXPECT_EQ(normalize_module_fqn("a['key'].b"), "a['key'].b");
  EXPECT_EQ(normalize_module_fqn("..a..b.."), "a.b");
}

TEST(NnModuleStack, SplitsOnCommasOutsideBrackets) {
  auto stack = module_stack_of("L__self__,,__main__.M;L__self___layers_0,L['self'].layers[0],"
                               "pkg.Block;L__self___d,getattr(L['self'].d, 'x,y'),pkg.D");
  ASSERT_EQ(stack.size(), 3u);
  EXPECT_EQ(stack[0], (ModuleContext{"", "__main__.M"}));
  EXPECT_EQ(stack[1], (ModuleContext{"layers.0", "pkg.Block"}));
  EXPECT_EQ(stack[2].type, "pkg.D");
  EXPECT_TRUE(module_stack_of("").empty());
}

TEST(NnModuleStack, RepeatedKeyKeepsFirstPositionLastValue) {
  auto stack = module_stack_of("k1,a,A;k2,b,B;k1,c,C");
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_EQ(stack[0], (ModuleContext{"c", "C"}));
  EXPECT_EQ(stack[1], (ModuleContext{"b", "B"}));
}

TEST(StackTrace, KeepsForwardFramesWithTheirCode) {
  auto frames =
      parse_stack_trace("File \"/src/model.py\", line 9, in forward\n    x = self.linear1(x)\n"
                        "  File \"/torch/nn/modules/module.py\", line 1775, in _call_impl\n"
                        "    return forward_call(*args, **kwargs)\n"
                        "  File \"/torch/nn/modules/linear.py\", line 134, in forward\n"
                        "    return F.linear(input, self.weight, self.bias)");
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].file, "/src/model.py");
  EXPECT_EQ(frames[0].line, 9);
  EXPECT_EQ(frames[0].function, "forward");
  EXPECT_EQ(frames[0].code, "x = self.linear1(x)");
  EXPECT_EQ(frames[1].file, "/torch/nn/modules/linear.py");
  EXPECT_EQ(frames[1].code, "return F.linear(input, self.weight, self.bias)");
}

TEST(StackTrace, HeaderWithoutCodeAndOddFileNames) {
  auto frames = parse_stack_trace("File \"/a \", line 2, in b.py\", line 3, in forward\n"
                                  "File \"/c.py\", line 4, in forward");
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].file, "/a \", line 2, in b.py"); // (.+) is greedy
  EXPECT_EQ(frames[0].line, 3);
  EXPECT_EQ(frames[0].code, "");
  EXPECT_EQ(frames[1].file, "/c.py");
  EXPECT_TRUE(parse_stack_trace("").empty());
  EXPECT_TRUE(parse_stack_trace("no frames here").empty());
}

TEST(OpType, SecondPartOfTorchFn) {
  EXPECT_EQ(op_type_of_torch_fn("linear_1;builtin_function_or_method.linear"), "linear");
  EXPECT_EQ(op_type_of_torch_fn("add_1;method_descriptor.add"), "add");
  EXPECT_EQ(op_type_of_torch_fn("x;a.b.c"), "b");
  EXPECT_EQ(op_type_of_torch_fn("relu_1;relu"), "");
  EXPECT_EQ(op_type_of_torch_fn("a;b;c.d"), "");
  EXPECT_EQ(op_type_of_torch_fn(""), "");
}

} // namespace
