// A hand-built index shaped like a small ResNet: enough structure for every
// feature (nesting, shared types, ops the quantizer does and does not register).
#pragma once

#include "opscope/index/index.h"

namespace opscope::testing {

inline index::Index small_resnet() {
  using namespace opscope::index;
  const auto quant = static_cast<std::uint8_t>(Compressor::Quantizer);
  const auto all = static_cast<std::uint8_t>(static_cast<int>(Compressor::Quantizer) |
                                             static_cast<int>(Compressor::KMeansPalettizer) |
                                             static_cast<int>(Compressor::MagnitudePruner));
  const std::string conv = "torch.nn.modules.conv.Conv2d";
  const std::string block = "models.resnet.BasicBlock";
  Index index;
  index.mode = Mode::Graph;
  // 0 root, 1 conv1, 2 layer1, 3 layer1.0, 4 layer1.0.conv1, 5 layer1.0.relu,
  // 6 layer1.1, 7 layer1.1.conv1, 8 fc
  index.modules = {
      {"", "models.resnet.Net", -1, {1, 2, 8}, {}, {}, {}},
      {"conv1", conv, 0, {}, {1}, {}, {}},
      {"layer1", "torch.nn.modules.container.Sequential", 0, {3, 6}, {}, {}, {}},
      {"layer1.0", block, 2, {4, 5}, {}, {}, {}},
      {"layer1.0.conv1", conv, 3, {}, {2}, {}, {}},
      {"layer1.0.relu", "torch.nn.modules.activation.ReLU", 3, {}, {3}, {}, {}},
      {"layer1.1", block, 2, {7}, {5}, {{0, {{"conv2d_2", 0}, {"add", 1}}}}, {{0, {"add", 0}}}},
      {"layer1.1.conv1", conv, 6, {}, {4}, {}, {}},
      {"fc", "torch.nn.modules.linear.Linear", 0, {}, {6}, {}, {}},
  };
  auto stack = [&](std::initializer_list<int> modules) {
    std::vector<ModuleContext> s;
    for (int m : modules)
      s.push_back({index.modules[static_cast<std::size_t>(m)].name,
                   index.modules[static_cast<std::size_t>(m)].type});
    return s;
  };
  auto frame = [](int line, const char* code) {
    return std::vector<SourceFrame>{{"models/resnet.py", line, "forward", code}};
  };
  index.ops = {
      {"x", "", OpKind::Input, stack({0}), {}, {}, {{0, {"conv2d"}}}, 0},
      {"conv2d",
       "conv2d",
       OpKind::Call,
       stack({0, 1}),
       frame(40, "x = self.conv1(x)"),
       {{"x", 0, false}, {"conv1.weight", std::nullopt, true}},
       {{0, {"conv2d_1"}}},
       all},
      {"conv2d_1",
       "conv2d",
       OpKind::Call,
       stack({0, 2, 3, 4}),
       frame(12, "out = self.conv1(x)"),
       {{"conv2d", 0, false}},
       {{0, {"relu"}}},
       all},
      {"relu",
       "relu",
       OpKind::Call,
       stack({0, 2, 3, 5}),
       frame(13, "out = self.relu(out)"),
       {{"conv2d_1", 0, false}},
       {{0, {"conv2d_2", "add"}}},
       0},
      {"conv2d_2",
       "conv2d",
       OpKind::Call,
       stack({0, 2, 6, 7}),
       frame(12, "out = self.conv1(x)"),
       {{"relu", 0, false}},
       {{0, {"add"}}},
       all},
      {"add",
       "add",
       OpKind::Call,
       stack({0, 2, 6}),
       frame(14, "return out + x"),
       {{"conv2d_2", 0, false}, {"relu", 0, false}},
       {{0, {"linear"}}},
       quant},
      {"linear",
       "linear",
       OpKind::Call,
       stack({0, 8}),
       frame(44, "return self.fc(x)"),
       {{"add", 0, false}},
       {{0, {"output"}}},
       all},
      {"output", "", OpKind::Output, stack({0}), {}, {{"linear", 0, false}}, {}, 0},
  };
  index.rebuild_lookups();
  return index;
}

} // namespace opscope::testing
