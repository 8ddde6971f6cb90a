// Which dialect reads a file, and the model it names: each library's files go to their own
// dialect (the first that recognises them), coreai-opt's to none, and a compressed-tensors
// checkpoint's config.json, whose root key is also coreai-opt's `quantization_config`, to
// llm-compressor's, with the checkpoint's own folder as its model.
#include "opscope/workspace/dialects.h"
#include "opscope/workspace/workspace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace opscope::workspace {
namespace {
namespace fs = std::filesystem;

std::string dialect_name(const std::string& path, const std::string& text) {
  return std::string(dialect_for(path, text).name());
}

constexpr const char* kCheckpoint = R"({
  "architectures": ["LlamaForCausalLM"],
  "model_type": "llama",
  "quantization_config": {
    "quant_method": "compressed-tensors",
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4}}},
    "ignore": ["lm_head"]
  }
})";

TEST(LlmcompressorDialect, EachLibrarysFilesGoToItsOwnDialect) {
  struct Case {
    const char* path;
    const char* text;
    const char* dialect;
  };
  const Case cases[] = {
      {"/w/config.json", kCheckpoint, "llmcompressor"},
      {"/w/recipe.yaml",
       "quant_stage:\n  quant_modifiers:\n    GPTQModifier:\n      targets: [Linear]\n"
       "      scheme: W4A16\n      ignore: [lm_head]\n",
       "llmcompressor"},
      {"/w/recipe.yaml", "QuantizationModifier:\n  scheme: FP8_DYNAMIC\n  targets: Linear\n",
       "llmcompressor"},
      {"/w/quantize.py",
       "from llmcompressor import oneshot\nfrom llmcompressor.modifiers.quantization import "
       "GPTQModifier\nrecipe = GPTQModifier(targets='Linear', scheme='W4A16', "
       "ignore=['lm_head'])\noneshot(model='org/m', recipe=recipe)\n",
       "llmcompressor"},
      {"/w/train.py",
       "from peft import LoraConfig\nconfig = LoraConfig(r=8, target_modules=['q_proj'])\n",
       "peft"},
      {"/w/adapter_config.json",
       R"({"peft_type": "LORA", "base_model_name_or_path": "org/m", "target_modules": ["q_proj"]})",
       "peft"},
      // A model's own config.json, plain or with bitsandbytes' quantization_config: no one's.
      {"/w/config.json", R"({"model_type": "llama", "hidden_size": 64})", "coreai-opt"},
      {"/w/config.json",
       R"({"model_type": "llama", "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true}})",
       "coreai-opt"},
      // coreai-opt's own quantization_config, in YAML and JSON: coreai-opt reads it.
      {"/w/q.yaml", "quantization_config:\n  global_config:\n    weight_dtype: int4\n",
       "coreai-opt"},
      {"/w/q.json", R"({"quantization_config": {"module_name_configs": {"fc": null}}})",
       "coreai-opt"},
      // A oneshot script whose recipe is another file holds nothing to check.
      {"/w/run.py", "from llmcompressor import oneshot\noneshot(model='m', recipe='r.yaml')\n",
       "coreai-opt"},
  };
  for (const Case& c : cases)
    EXPECT_EQ(dialect_name(c.path, c.text), c.dialect) << c.path << "\n" << c.text;
}

std::optional<std::string> model_of(const std::string& path, const std::string& text) {
  return dialect_for(path, text).read(path, text)->model();
}

TEST(LlmcompressorDialect, AScriptNamesItsModelAsLlmCompressorsExamplesWriteIt) {
  const std::string modifier = "recipe = QuantizationModifier(targets='Linear', scheme='W4A16')\n";
  EXPECT_EQ(model_of("/w/a.py", modifier + "oneshot(model='org/direct', recipe=recipe)\n"),
            "org/direct");
  EXPECT_EQ(model_of("/w/b.py", "MODEL_ID = \"org/assigned\"\nmodel = "
                                "AutoModelForCausalLM.from_pretrained(MODEL_ID)\n" +
                                    modifier + "oneshot(model=model, recipe=recipe)\n"),
            "org/assigned");
  EXPECT_EQ(model_of("/w/c.py", "tok = AutoTokenizer.from_pretrained('org/tok')\nmodel = "
                                "AutoModelForCausalLM.from_pretrained('org/loaded')\n" +
                                    modifier),
            "org/loaded");
  EXPECT_EQ(model_of("/w/d.py", modifier), std::nullopt);
  // A recipe names no model: opscope.yaml does.
  EXPECT_EQ(model_of("/w/recipe.yaml", "QuantizationModifier:\n  scheme: W4A16\n"), std::nullopt);
}

class FakeHost : public Host {
public:
  const Model* ensure(const project::ModelSpec& spec) override {
    model.spec = spec;
    ++loads;
    return &model;
  }
  bool allows(const trust::Need&) override { return true; }
  std::string untrusted_message(const trust::Need&) const override { return ""; }
  Model model;
  int loads = 0;
};

// The checkpoint's architecture is in the same file: no opscope.yaml, the model is hf: of that
// config.json, and coreai-opt's checks (its unknown-field errors on every key) stay silent.
TEST(LlmcompressorDialect, ACheckpointIsItsOwnModelDespiteCoreaiOptsRootKey) {
  fs::path root = fs::temp_directory_path() /
                  ("opscope-dialects-test-" +
                   std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::remove_all(root);
  fs::create_directories(root / "ckpt");
  std::ofstream(root / "ckpt" / "config.json") << kCheckpoint;
  FakeHost host;
  Workspace workspace(host, {});
  Document doc;
  doc.path = (root / "ckpt" / "config.json").string();
  doc.uri = "file://" + doc.path;
  doc.text = kCheckpoint;
  doc.revision = 1;
  Analysis analysis = workspace.analyse(doc);
  EXPECT_EQ(analysis.dialect->name(), "llmcompressor");
  ASSERT_TRUE(analysis.resolution.model) << analysis.resolution.problem;
  EXPECT_EQ(analysis.resolution.model->target, "hf:" + doc.path);
  EXPECT_TRUE(analysis.resolution.model_from_config);
  EXPECT_EQ(host.loads, 1);
  for (const dialects::Diagnostic& d : workspace.diagnose(analysis))
    EXPECT_NE(d.code, "unknown-field") << d.message;
  fs::remove_all(root);
}

} // namespace
} // namespace opscope::workspace
