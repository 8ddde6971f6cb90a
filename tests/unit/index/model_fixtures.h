// Hand-built indexes of the two reference models, exactly as graph mode inspects them
// (names, stacks, edges and boundaries checked against coreai-opt's ModelInspector):
// MyModel from model-inspection.md and SomeModel from find-input-layers.zh.md.
#pragma once

#include "opscope/index/index.h"

#include <string>
#include <utility>
#include <vector>

namespace opscope::fixtures {

using namespace opscope::index;

inline constexpr std::uint8_t kQuantizer = static_cast<std::uint8_t>(Compressor::Quantizer);

inline Op state_op(const std::string& name, const std::string& consumer) {
  return Op{name, "", OpKind::State, {}, {}, {}, {{0, {consumer}}}, 0};
}

inline Op input_op(const std::string& name, std::vector<std::string> consumers) {
  return Op{name, "", OpKind::Input, {}, {}, {}, {{0, std::move(consumers)}}, 0};
}

inline Op output_op(const std::string& producer) {
  return Op{"output", "", OpKind::Output, {}, {}, {{producer, 0, false}}, {{0, {}}}, 0};
}

inline InputEdge activation(const std::string& producer) {
  return {producer, 0, false};
}
inline InputEdge state(const std::string& name) {
  return {name, std::nullopt, true};
}

// Adds a call op and registers it with the innermost module of its stack.
inline void add_call(Index& index, Op op) {
  op.kind = OpKind::Call;
  const std::string owner = op.module_stack.back().name;
  for (auto& module : index.modules)
    if (module.name == owner)
      module.ops.push_back(static_cast<int>(index.ops.size()));
  index.ops.push_back(std::move(op));
}

// MyModel: linear1 -> relu -> linear2, defined in /home/user/proj/my_model.py.
inline Index my_model_index(bool with_source = true) {
  const std::string file = "/home/user/proj/my_model.py";
  const std::string torch_linear = "/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py";
  const ModuleContext root{"", "__main__.MyModel"};
  const ModuleContext linear1{"linear1", "torch.nn.modules.linear.Linear"};
  const ModuleContext relu{"relu", "torch.nn.modules.activation.ReLU"};
  const ModuleContext linear2{"linear2", "torch.nn.modules.linear.Linear"};
  auto frames = [&](int line, const std::string& code,
                    std::vector<SourceFrame> inner) -> std::vector<SourceFrame> {
    if (!with_source)
      return {};
    std::vector<SourceFrame> out{{file, line, "forward", code}};
    out.insert(out.end(), inner.begin(), inner.end());
    return out;
  };

  Index index;
  index.mode = Mode::Graph;
  index.provenance.archive = "my_model.pt2";
  index.modules = {
      {"", root.type, -1, {1, 2, 3}, {}, {{0, {{"linear", 0}}}}, {{0, {"linear_1", 0}}}},
      {"linear1", linear1.type, 0, {}, {}, {{0, {{"linear", 0}}}}, {{0, {"linear", 0}}}},
      {"relu", relu.type, 0, {}, {}, {{0, {{"relu", 0}}}}, {{0, {"relu", 0}}}},
      {"linear2", linear2.type, 0, {}, {}, {{0, {{"linear_1", 0}}}}, {{0, {"linear_1", 0}}}},
  };
  index.ops = {state_op("linear1.weight", "linear"), state_op("linear1.bias", "linear"),
               state_op("linear2.weight", "linear_1"), state_op("linear2.bias", "linear_1"),
               input_op("x", {"linear"})};
  const SourceFrame f_linear{torch_linear, 134, "forward",
                             "return F.linear(input, self.weight, self.bias)"};
  add_call(index, {"linear",
                   "linear",
                   OpKind::Call,
                   {root, linear1},
                   frames(13, "x = self.linear1(x)", {f_linear}),
                   {activation("x"), state("linear1.weight"), state("linear1.bias")},
                   {{0, {"relu"}}},
                   kQuantizer});
  add_call(index, {"relu",
                   "relu",
                   OpKind::Call,
                   {root, relu},
                   frames(14, "x = self.relu(x)",
                          {{"/venv/lib/python3.11/site-packages/torch/nn/modules/activation.py",
                            143, "forward", "return F.relu(input, inplace=self.inplace)"}}),
                   {activation("linear")},
                   {{0, {"linear_1"}}},
                   0});
  add_call(index, {"linear_1",
                   "linear",
                   OpKind::Call,
                   {root, linear2},
                   frames(15, "x = self.linear2(x)", {f_linear}),
                   {activation("relu"), state("linear2.weight"), state("linear2.bias")},
                   {{0, {"output"}}},
                   kQuantizer});
  index.ops.push_back(output_op("linear_1"));
  index.rebuild_lookups();
  return index;
}

// SomeModel: conv1 -> bn1 -> F.relu and conv2 -> F.relu, both into conc (torch.cat), then
// F.avg_pool2d, view and linear. The F.* calls belong to the root module.
inline Index some_model_index() {
  const std::string file = "/home/user/proj/some_model.py";
  const ModuleContext root{"", "some_model.SomeModel"};
  const ModuleContext conv1{"conv1", "torch.nn.modules.conv.Conv2d"};
  const ModuleContext bn1{"bn1", "torch.nn.modules.batchnorm.BatchNorm2d"};
  const ModuleContext conv2{"conv2", "torch.nn.modules.conv.Conv2d"};
  const ModuleContext conc{"conc", "some_model.Concat"};
  const ModuleContext linear{"linear", "torch.nn.modules.linear.Linear"};
  auto at = [&](int line, const std::string& code) {
    return std::vector<SourceFrame>{{file, line, "forward", code}};
  };
  const std::string line24 = "out1 = F.relu(self.bn1(self.conv1(x)))";
  const std::string line25 = "out2 = F.relu(self.conv2(x))";

  Index index;
  index.mode = Mode::Graph;
  index.provenance.archive = "some_model.pt2";
  index.modules = {
      {"",
       root.type,
       -1,
       {1, 2, 3, 4, 5},
       {},
       {{0, {{"conv2d", 0}}}, {1, {{"conv2d_1", 0}}}},
       {{0, {"linear", 0}}}},
      {"conv1", conv1.type, 0, {}, {}, {{0, {{"conv2d", 0}}}}, {{0, {"conv2d", 0}}}},
      {"bn1", bn1.type, 0, {}, {}, {{0, {{"batch_norm", 0}}}}, {{0, {"batch_norm", 0}}}},
      {"conv2", conv2.type, 0, {}, {}, {{0, {{"conv2d_1", 0}}}}, {{0, {"conv2d_1", 0}}}},
      {"conc", conc.type, 0, {}, {}, {{0, {{"cat", 0}}}, {1, {{"cat", 1}}}}, {{0, {"cat", 0}}}},
      {"linear", linear.type, 0, {}, {}, {{0, {{"linear", 0}}}}, {{0, {"linear", 0}}}},
  };
  index.ops = {
      state_op("conv1.weight", "conv2d"),         state_op("bn1.weight", "batch_norm"),
      state_op("bn1.bias", "batch_norm"),         state_op("conv2.weight", "conv2d_1"),
      state_op("linear.weight", "linear"),        state_op("linear.bias", "linear"),
      state_op("bn1.running_mean", "batch_norm"), state_op("bn1.running_var", "batch_norm"),
      input_op("x", {"conv2d", "conv2d_1"})};
  add_call(index, {"conv2d",
                   "conv2d",
                   OpKind::Call,
                   {root, conv1},
                   at(24, line24),
                   {activation("x"), state("conv1.weight")},
                   {{0, {"batch_norm"}}},
                   kQuantizer});
  add_call(index, {"batch_norm",
                   "batch_norm",
                   OpKind::Call,
                   {root, bn1},
                   at(24, line24),
                   {activation("conv2d"), state("bn1.weight"), state("bn1.bias"),
                    state("bn1.running_mean"), state("bn1.running_var")},
                   {{0, {"relu"}}},
                   0});
  add_call(index, {"relu",
                   "relu",
                   OpKind::Call,
                   {root},
                   at(24, line24),
                   {activation("batch_norm")},
                   {{0, {"cat"}}},
                   0});
  add_call(index, {"conv2d_1",
                   "conv2d",
                   OpKind::Call,
                   {root, conv2},
                   at(25, line25),
                   {activation("x"), state("conv2.weight")},
                   {{0, {"relu_1"}}},
                   kQuantizer});
  add_call(index, {"relu_1",
                   "relu",
                   OpKind::Call,
                   {root},
                   at(25, line25),
                   {activation("conv2d_1")},
                   {{0, {"cat"}}},
                   0});
  add_call(index, {"cat",
                   "cat",
                   OpKind::Call,
                   {root, conc},
                   {{file, 26, "forward", "out = self.conc([out1, out2])"},
                    {file, 11, "forward", "return torch.cat(x, self.d)"}},
                   {activation("relu"), activation("relu_1")},
                   {{0, {"avg_pool2d"}}},
                   kQuantizer});
  add_call(index, {"avg_pool2d",
                   "avg_pool2d",
                   OpKind::Call,
                   {root},
                   at(27, "out = F.avg_pool2d(out, 4)"),
                   {activation("cat")},
                   {{0, {"view"}}},
                   kQuantizer});
  add_call(index, {"view",
                   "view",
                   OpKind::Call,
                   {root},
                   at(28, "out = out.view(out.size(0), -1)"),
                   {activation("avg_pool2d")},
                   {{0, {"linear"}}},
                   0});
  add_call(index, {"linear",
                   "linear",
                   OpKind::Call,
                   {root, linear},
                   at(29, "out = self.linear(out)"),
                   {activation("view"), state("linear.weight"), state("linear.bias")},
                   {{0, {"output"}}},
                   kQuantizer});
  index.ops.push_back(output_op("linear"));
  index.rebuild_lookups();
  return index;
}

} // namespace opscope::fixtures
