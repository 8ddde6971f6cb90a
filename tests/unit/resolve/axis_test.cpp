// quantizer_axis_missing: when the eager Quantizer's prepare() raises on a weight's axis
// (coreai-opt 0.4.0 quantization/_axis_defaults.py, _granularity_needs_axis_default and
// _WEIGHT_AXIS_SPECS). tests/fidelity/test_prepare_raises_fidelity.py holds it to prepare().
#include "opscope/resolve/size.h"

#include <gtest/gtest.h>

using opscope::resolve::quantizer_axis_missing;
using json = nlohmann::ordered_json;

namespace {

json weight(json granularity) {
  return {{"dtype", "int4"}, {"granularity", granularity}};
}

const std::string kNorm = "transformers.models.llama.modeling_llama.LlamaRMSNorm";

} // namespace

TEST(QuantizerAxis, PerChannelWithoutAxisOnANormRaises) {
  EXPECT_EQ(quantizer_axis_missing(weight({{"type", "per_channel"}}), kNorm), "per_channel");
  EXPECT_EQ(quantizer_axis_missing(weight("per_channel"), kNorm), "per_channel");
  EXPECT_EQ(quantizer_axis_missing(weight({{"type", "per_channel"}, {"axis", nullptr}}), kNorm),
            "per_channel");
}

TEST(QuantizerAxis, AnAxisADefaultOrNoAxisNeededIsFine) {
  EXPECT_FALSE(quantizer_axis_missing(weight({{"type", "per_channel"}, {"axis", 0}}), kNorm));
  EXPECT_FALSE(
      quantizer_axis_missing(weight({{"type", "per_channel"}}), "torch.nn.modules.linear.Linear"));
  EXPECT_FALSE(quantizer_axis_missing(weight({{"type", "per_tensor"}}), kNorm));
  EXPECT_FALSE(quantizer_axis_missing(json{{"dtype", "int8"}}, kNorm));        // per_tensor default
  EXPECT_FALSE(quantizer_axis_missing(json(nullptr), kNorm));                  // full precision
  EXPECT_FALSE(quantizer_axis_missing(weight({{"type", "per_channel"}}), "")); // owner unknown
}

TEST(QuantizerAxis, PerBlockNeedsAnAxisOnlyWithOneBlockSize) {
  EXPECT_EQ(quantizer_axis_missing(weight({{"type", "per_block"}, {"block_size", 16}}), kNorm),
            "per_block");
  EXPECT_FALSE(quantizer_axis_missing(
      weight({{"type", "per_block"}, {"block_size", json::array({1, 16})}}), kNorm));
  EXPECT_FALSE(quantizer_axis_missing(
      weight({{"type", "per_block"}, {"block_size", 16}, {"axis", 1}}), kNorm));
}
