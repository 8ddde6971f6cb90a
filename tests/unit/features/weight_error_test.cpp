// The weight error's lens and hover text (core/dialects/coreai/features/src/weight_error.cpp) from
// a measurement handed in by the host: what the user reads above the config and on an entry, and
// that a measurement of an older revision never puts its numbers on the wrong entry.
#include "opscope/coreai/config/document.h"
#include "opscope/features/projected_size.h"
#include "opscope/features/weight_error.h"
#include "small_model.h"

#include <gtest/gtest.h>

using namespace opscope;
using namespace opscope::features;

namespace {

const char* kConfig = "quantization_config:\n"
                      "  module_name_configs:\n"
                      "    'layer1\\..*': {op_state_spec: {weight: {dtype: int4}}}\n"
                      "    fc: {op_state_spec: {weight: {dtype: int8}}}\n";

index::Index weighted_index() {
  index::Index index = opscope::testing::small_resnet();
  index.parameters = {{"conv1.weight", {}, {8, 3, 3, 3}, "float32", false},
                      {"layer1.0.conv1.weight", {}, {8, 8, 3, 3}, "float32", false},
                      {"layer1.1.conv1.weight", {}, {8, 8, 3, 3}, "float32", false},
                      {"fc.weight", {}, {10, 8}, "float32", false}};
  index.rebuild_lookups();
  return index;
}

int key_of(const config::ConfigDocument& doc, const std::string& text) {
  for (std::size_t k = 0; k < doc.keys.size(); ++k)
    if (doc.keys[k].text == text)
      return static_cast<int>(k);
  ADD_FAILURE() << "no key " << text;
  return -1;
}

resolve::WeightErrorRow row(int parameter, int key, std::optional<double> sqnr, double error) {
  resolve::WeightErrorRow r;
  r.quantization.parameter = parameter;
  r.quantization.decider = {resolve::Decider::Kind::Key, key, 0};
  r.measured = true;
  r.sqnr_db = sqnr;
  r.relative_error = error;
  return r;
}

// layer1's entry decides its two convolutions and (here) conv1; fc's entry decides fc.
std::shared_ptr<resolve::WeightErrorReport> measured(const config::ConfigDocument& doc) {
  auto report = std::make_shared<resolve::WeightErrorReport>();
  report->applies = true;
  const int layer1 = key_of(doc, "layer1\\..*"), fc = key_of(doc, "fc");
  report->rows = {row(0, layer1, 24.5, 0.0601), row(1, layer1, 22.25, 0.0772),
                  row(2, layer1, 23.0, 0.0709), row(3, fc, 47.96, 0.004)};
  report->worst = {1, 2, 0};
  return report;
}

} // namespace

TEST(WeightError, TheLensNamesTheThreeWorstWeightsBesideTheProjectedSize) {
  index::Index index = weighted_index();
  auto doc = config::read_config(kConfig, config::Format::Yaml);
  WeightErrorState state{measured(doc), true, false};
  Model model{&index, index::Compressor::Quantizer, nullptr, nullptr, &state};
  std::optional<CodeLens> lens = weight_error_lens(doc, &model);
  ASSERT_TRUE(lens.has_value());
  EXPECT_EQ(lens->title, "weight error, worst: layer1.0.conv1.weight 22.25 dB, "
                         "layer1.1.conv1.weight 23.00 dB, conv1.weight 24.50 dB SQNR");
  EXPECT_EQ(lens->range, doc.root_range);
  std::vector<CodeLens> lenses = code_lenses(doc, &model);
  ASSERT_EQ(lenses.size(), 2u); // the projected size first, then the weight error
  EXPECT_EQ(lenses[1].title, lens->title);
}

TEST(WeightError, TheLensSaysComputingUntilTheFirstMeasurementAndNothingWithoutWeights) {
  index::Index index = weighted_index();
  auto doc = config::read_config(kConfig, config::Format::Yaml);
  WeightErrorState state{nullptr, false, true};
  Model model{&index, index::Compressor::Quantizer, nullptr, nullptr, &state};
  ASSERT_TRUE(weight_error_lens(doc, &model).has_value());
  EXPECT_EQ(weight_error_lens(doc, &model)->title, "weight error: computing…");

  auto weightless = measured(doc);
  weightless->unavailable = "no weights in this archive (exported weightless)";
  weightless->weightless = true;
  weightless->worst.clear();
  state = {weightless, true, false};
  EXPECT_FALSE(weight_error_lens(doc, &model).has_value());
  std::optional<std::string> hover =
      entry_weight_error_text(doc, &model, key_of(doc, "layer1\\..*"));
  ASSERT_TRUE(hover.has_value());
  EXPECT_EQ(*hover, "**Weight error**: not measured: no weights in this archive (exported "
                    "weightless).\n\n");
}

TEST(WeightError, AnEntrysHoverGivesTheWorstAndTheMedianWeightItDecides) {
  index::Index index = weighted_index();
  auto doc = config::read_config(kConfig, config::Format::Yaml);
  WeightErrorState state{measured(doc), true, false};
  Model model{&index, index::Compressor::Quantizer, nullptr, nullptr, &state};
  std::optional<std::string> layer1 =
      entry_weight_error_text(doc, &model, key_of(doc, "layer1\\..*"));
  ASSERT_TRUE(layer1.has_value());
  EXPECT_NE(layer1->find("of the 3 weights this entry decides: worst `layer1.0.conv1.weight` "
                         "22.25 dB SQNR, relative error 0.07720; median "
                         "`layer1.1.conv1.weight` 23.00 dB, 0.07090."),
            std::string::npos)
      << *layer1;
  std::optional<std::string> fc = entry_weight_error_text(doc, &model, key_of(doc, "fc"));
  ASSERT_TRUE(fc.has_value());
  EXPECT_NE(fc->find("of the weight this entry decides: `fc.weight` 47.96 dB SQNR"),
            std::string::npos)
      << *fc;
}

TEST(WeightError, AnOlderRevisionsNumbersNeverReachAnEntrysHover) {
  // After an edit the keys may sit elsewhere: until this revision is measured the hover says
  // so instead of showing the last revision's numbers on whatever key now has its index.
  index::Index index = weighted_index();
  auto doc = config::read_config(kConfig, config::Format::Yaml);
  WeightErrorState state{measured(doc), /*current=*/false, /*measuring=*/true};
  Model model{&index, index::Compressor::Quantizer, nullptr, nullptr, &state};
  std::optional<std::string> hover =
      entry_weight_error_text(doc, &model, key_of(doc, "layer1\\..*"));
  ASSERT_TRUE(hover.has_value());
  EXPECT_EQ(*hover, "**Weight error**: computing…\n\n");
  // The lens names no key: it keeps the last numbers, saying they are being updated.
  ASSERT_TRUE(weight_error_lens(doc, &model).has_value());
  EXPECT_EQ(weight_error_lens(doc, &model)->title,
            "weight error, worst: layer1.0.conv1.weight 22.25 dB, layer1.1.conv1.weight "
            "23.00 dB, conv1.weight 24.50 dB SQNR (updating…)");
  state.measuring = false;
  EXPECT_FALSE(entry_weight_error_text(doc, &model, key_of(doc, "layer1\\..*")).has_value());
}
