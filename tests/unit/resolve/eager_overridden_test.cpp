// The editor's resolution for the compressors coreai-opt applies in eager mode besides the
// pruner: the KMeans palettizer and the Quantizer with `execution_mode: eager`. diagnose()
// and hover() report `overridden`, `partly-overridden` and `no-effect` as for the graph
// Quantizer, from the calls each compressor registers.
#include "opscope/features/diagnostics.h"
#include "opscope/features/hover.h"
#include "opscope/resolve/resolve.h"
#include "small_convnet.h"

#include <gtest/gtest.h>

#include <string>

namespace opscope::resolve {
namespace {

using index::Compressor;

// The convnet indexed eager, each conv / linear reading its own weight and registered by the
// palettizer and the eager Quantizer; plus `norm` (an RMSNorm: one `mul` reading norm.weight),
// which the eager Quantizer registers and the palettizer does not
// (palettization/kmeans/supported_ops_registry.py: conv*, conv_transpose*, linear,
// multi_head_attention_forward only).
const index::Index& eager_model() {
  static const index::Index index = [] {
    index::Index i = testing::small_model();
    i.mode = index::Mode::Eager;
    auto add_weight = [&](index::Op& o, const std::string& name, std::vector<std::int64_t> shape) {
      index::Parameter p;
      p.name = name;
      p.shape = std::move(shape);
      p.dtype = "float32";
      i.parameters.push_back(p);
      o.inputs.push_back({"x", 0, false});
      o.inputs.push_back({name, std::nullopt, true});
    };
    for (std::size_t m = 0; m < i.modules.size(); ++m)
      for (int op : i.modules[m].ops) {
        index::Op& o = i.ops[static_cast<std::size_t>(op)];
        o.compressors |= static_cast<std::uint8_t>(Compressor::KMeansPalettizer);
        add_weight(o, i.modules[m].name + ".weight", {4, 4, 3, 3});
      }
    index::Module norm;
    norm.name = "norm";
    norm.type = "m.RMSNorm";
    norm.parent = 0;
    i.modules.push_back(norm);
    const int n = static_cast<int>(i.modules.size()) - 1;
    i.modules[0].children.push_back(n);
    index::Op mul;
    mul.name = "mul";
    mul.type = "mul";
    mul.compressors = static_cast<std::uint8_t>(Compressor::Quantizer);
    mul.module_stack = {{"", "m.Net"}, {"norm", "m.RMSNorm"}};
    add_weight(mul, "norm.weight", {4});
    i.ops.push_back(mul);
    i.modules.back().ops.push_back(static_cast<int>(i.ops.size()) - 1);
    i.rebuild_lookups();
    return i;
  }();
  return index;
}

const std::string kPalettize = "kmeans_palettization_config:\n";
const std::string kEagerQuantize = "quantization_config:\n  execution_mode: eager\n";

struct Checked {
  config::ConfigDocument doc;
  std::vector<features::Diagnostic> diagnostics;
};

Checked check(const std::string& text, Compressor compressor) {
  Checked c{config::read_config(text, config::Format::Yaml), {}};
  EXPECT_TRUE(c.doc.problems.empty());
  EXPECT_TRUE(resolves(c.doc, eager_model()));
  features::Model m{&eager_model(), compressor, nullptr, nullptr};
  c.diagnostics = features::diagnose(c.doc, &m);
  return c;
}

std::string hover_text(const std::string& text, Compressor compressor, config::Position at) {
  config::ConfigDocument doc = config::read_config(text, config::Format::Yaml);
  features::Model m{&eager_model(), compressor, nullptr, nullptr};
  auto h = features::hover(doc, at, &m);
  return h ? h->markdown : std::string();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The Llama case: a Linear / Conv2d type key whose every module a name key claims.
const std::string kTypeShadowedByNames = "  module_type_configs:\n"
                                         "    torch.nn.modules.conv.Conv2d: {}\n"
                                         "  module_name_configs:\n"
                                         "    conv1: {}\n"
                                         "    layer3: {}\n"
                                         "    layer4: {}\n";

TEST(EagerOverridden, PalettizerTypeKeyShadowedByNameKeysIsOverriddenNamingThem) {
  Checked c = check(kPalettize + kTypeShadowedByNames, Compressor::KMeansPalettizer);
  ASSERT_EQ(c.diagnostics.size(), 1u);
  const features::Diagnostic& d = c.diagnostics[0];
  EXPECT_EQ(d.code, "overridden");
  EXPECT_EQ(d.range.start.line, 2);
  for (const char* winner : {"`conv1` (line 5)", "`layer3` (line 6)", "`layer4` (line 7)"})
    EXPECT_TRUE(has(d.message, winner)) << d.message;
  // No order of the entries helps against a stronger table: no move-below fix.
  EXPECT_TRUE(d.fixes.empty());
  EXPECT_TRUE(
      has(hover_text(kPalettize + kTypeShadowedByNames, Compressor::KMeansPalettizer, {2, 8}),
          "(eager mode): decides 0 of the 4 ops the KMeansPalettizer palettizes here"));
}

TEST(EagerOverridden, EagerQuantizerTypeKeyShadowedByNameKeysIsOverriddenToo) {
  Checked c = check(kEagerQuantize + kTypeShadowedByNames, Compressor::Quantizer);
  ASSERT_EQ(c.diagnostics.size(), 1u);
  EXPECT_EQ(c.diagnostics[0].code, "overridden");
  EXPECT_EQ(c.diagnostics[0].range.start.line, 3);
  EXPECT_TRUE(has(c.diagnostics[0].message, "`layer4` (line 8)")) << c.diagnostics[0].message;
}

TEST(EagerOverridden, ANameKeyBeforeItsParentsKeyIsOverriddenWithAMoveBelowFix) {
  const std::string entries = "  module_name_configs:\n"
                              "    'layer3\\.0\\.conv1': {}\n"
                              "    layer3: {}\n";
  for (auto [header, compressor] : {std::pair{kPalettize, Compressor::KMeansPalettizer},
                                    std::pair{kEagerQuantize, Compressor::Quantizer}}) {
    Checked c = check(header + entries, compressor);
    ASSERT_EQ(c.diagnostics.size(), 1u) << header;
    const features::Diagnostic& d = c.diagnostics[0];
    EXPECT_EQ(d.code, "overridden");
    EXPECT_EQ(d.range.start.line, c.doc.keys[0].range.start.line);
    EXPECT_TRUE(has(d.message, "`layer3`")) << d.message;
    ASSERT_EQ(d.fixes.size(), 1u); // move it below `layer3`
  }
}

TEST(EagerOverridden, ATypeKeyLosingSomeOfItsModulesIsPartlyOverridden) {
  const std::string text = kPalettize + "  module_type_configs:\n"
                                        "    torch.nn.modules.conv.Conv2d: {}\n"
                                        "  module_name_configs:\n"
                                        "    layer3: {}\n";
  Checked c = check(text, Compressor::KMeansPalettizer);
  ASSERT_EQ(c.diagnostics.size(), 1u);
  EXPECT_EQ(c.diagnostics[0].code, "partly-overridden");
  EXPECT_EQ(c.diagnostics[0].severity, features::Severity::Information);
  EXPECT_TRUE(has(c.diagnostics[0].message, "`layer3` (line 5)")) << c.diagnostics[0].message;
  EXPECT_TRUE(has(hover_text(text, Compressor::KMeansPalettizer, {2, 8}),
                  "decides 2 of the 4 ops the KMeansPalettizer palettizes here; the others go "
                  "to:\n\n- `layer3` (line 5): 2 ops"));
}

TEST(EagerOverridden, AKeyOnModulesThePalettizerDoesNotCompressHasNoEffect) {
  const std::string entries = "  module_name_configs:\n    norm: {}\n";
  Checked c = check(kPalettize + entries, Compressor::KMeansPalettizer);
  ASSERT_EQ(c.diagnostics.size(), 1u);
  EXPECT_EQ(c.diagnostics[0].code, "no-effect");
  EXPECT_TRUE(has(c.diagnostics[0].message,
                  "none of their 1 op is one the KMeansPalettizer palettizes (linear, conv, "
                  "multi-head attention): they compute with `mul`"))
      << c.diagnostics[0].message;
  // The eager Quantizer registers mul: the same key quantizes it.
  EXPECT_TRUE(check(kEagerQuantize + entries, Compressor::Quantizer).diagnostics.empty());
}

TEST(EagerOverridden, TheRootKeySummarisesThePalettizersResolution) {
  const std::string text = kPalettize + "  module_name_configs:\n    fc: null\n";
  EXPECT_TRUE(has(hover_text(text, Compressor::KMeansPalettizer, {0, 3}),
                  "**5 ops configured by the KMeansPalettizer** (coreai-opt's resolution, eager "
                  "mode): 4 compressed, 1 left in full precision."));
}

} // namespace
} // namespace opscope::resolve
