// A hand-built ResNet-like index for the resolution tests:
// root > conv1 (conv2d); layer3 > layer3.0 (BasicBlock) > conv1 (conv2d_1), conv2 (conv2d_2);
// layer4 > layer4.0 (BasicBlock) > conv1 (conv2d_3); fc (linear).
#pragma once

#include "opscope/index/index.h"

#include <string>

namespace opscope::resolve::testing {

using index::Index;

inline const std::string kConv = "torch.nn.modules.conv.Conv2d";
inline const std::string kBlock = "m.BasicBlock";

inline Index small_model() {
  Index index;
  auto module = [&](std::string name, std::string type, int parent) {
    index::Module m;
    m.name = std::move(name);
    m.type = std::move(type);
    m.parent = parent;
    index.modules.push_back(m);
    int id = static_cast<int>(index.modules.size()) - 1;
    if (parent >= 0)
      index.modules[static_cast<std::size_t>(parent)].children.push_back(id);
    return id;
  };
  auto op = [&](std::string name, std::string type, int owner) {
    index::Op o;
    o.name = std::move(name);
    o.type = std::move(type);
    o.compressors = static_cast<std::uint8_t>(index::Compressor::Quantizer);
    for (int m = owner; m >= 0; m = index.modules[static_cast<std::size_t>(m)].parent)
      o.module_stack.insert(o.module_stack.begin(),
                            {index.modules[static_cast<std::size_t>(m)].name,
                             index.modules[static_cast<std::size_t>(m)].type});
    index.ops.push_back(o);
    index.modules[static_cast<std::size_t>(owner)].ops.push_back(
        static_cast<int>(index.ops.size()) - 1);
  };
  int root = module("", "m.Net", -1);
  op("conv2d", "conv2d", module("conv1", kConv, root));
  int layer3 = module("layer3", "torch.nn.modules.container.Sequential", root);
  int block3 = module("layer3.0", kBlock, layer3);
  op("conv2d_1", "conv2d", module("layer3.0.conv1", kConv, block3));
  op("conv2d_2", "conv2d", module("layer3.0.conv2", kConv, block3));
  int layer4 = module("layer4", "torch.nn.modules.container.Sequential", root);
  int block4 = module("layer4.0", kBlock, layer4);
  op("conv2d_3", "conv2d", module("layer4.0.conv1", kConv, block4));
  op("linear", "linear", module("fc", "torch.nn.modules.linear.Linear", root));
  index.rebuild_lookups();
  return index;
}

} // namespace opscope::resolve::testing
