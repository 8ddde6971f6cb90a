// read_values: the values the projected size and explain read (weight specs, settings). A
// Python config's values come from its own reader, typed as the literals were written; before,
// the YAML scanner read the Python text, found no mapping, and a Python config's int4 weights
// were projected at 32 bits per weight.
#include "opscope/coreai/config/document.h"
#include "opscope/coreai/config/values.h"

#include <gtest/gtest.h>

using namespace opscope::config;

TEST(ReadValues, PythonConfigCallsGiveTheSameValuesAsTheirYaml) {
  ConfigDocument python = read_config(R"(from coreai_opt.quantization.config import *
config = QuantizerConfig(
    global_config=ModuleQuantizerConfig(
        op_state_spec={"weight": QuantizationSpec(dtype="int4", block_size=32, symmetric=True)},
    ),
    module_name_configs={r"layer1\..*": None},
)
)",
                                      Format::Python);
  ConfigDocument yaml = read_config(R"(quantization_config:
  global_config:
    op_state_spec:
      weight: {dtype: int4, block_size: 32, symmetric: true}
  module_name_configs:
    'layer1\..*': null
)",
                                    Format::Yaml);
  auto from_python = read_values(python);
  auto from_yaml = read_values(yaml);
  ASSERT_TRUE(from_python.has_value());
  ASSERT_TRUE(from_yaml.has_value());
  EXPECT_EQ(from_python->dump(), from_yaml->dump());
  EXPECT_EQ((*from_python)["quantization_config"]["global_config"]["op_state_spec"]["weight"]
                          ["block_size"],
            32);
}

TEST(ReadValues, PythonLiteralsKeepTheirTypeAndExpressionsStayText) {
  ConfigDocument doc = read_config(R"(config = QuantizerConfig(
    global_config=ModuleQuantizerConfig(
        op_state_spec={"weight": QuantizationSpec(dtype="8", block_size=-4, ch_axis=0.5,
                                                  symmetric=False, qscheme=my_scheme)},
    ),
)
)",
                                   Format::Python);
  auto values = read_values(doc);
  ASSERT_TRUE(values.has_value());
  const auto& weight = (*values)["quantization_config"]["global_config"]["op_state_spec"]["weight"];
  EXPECT_TRUE(weight["dtype"].is_string()) << weight.dump(); // "8" is a string in Python
  EXPECT_EQ(weight["block_size"], -4);
  EXPECT_DOUBLE_EQ(weight["ch_axis"].get<double>(), 0.5);
  EXPECT_EQ(weight["symmetric"], false);
  EXPECT_EQ(weight["qscheme"], "my_scheme");
}

TEST(ReadValues, TheDocumentsTreeAndARescanAgree) {
  const std::string text = "quantization_config:\n  global_config: &g\n    op_state_spec: {}\n"
                           "  module_type_configs:\n    Linear: *g\n";
  ConfigDocument doc = read_config(text, Format::Yaml);
  auto from_tree = read_values(doc);
  auto from_text = read_values(text, Format::Yaml);
  ASSERT_TRUE(from_tree.has_value());
  ASSERT_TRUE(from_text.has_value());
  EXPECT_EQ(from_tree->dump(), from_text->dump());
}
