// libFuzzer harness: the llm-compressor dialect's readers (a recipe YAML, a checkpoint's
// config.json, a Python script's modifier calls) and everything run over what they read
// (resolve, diagnose, hover, completion and the projected size) on a hand-built two-layer Llama.
#include "opscope/dialects/llmcompressor/llmcompressor.h"
#include "tiny_llama.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace lc = opscope::dialects::llmcompressor;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const opscope::index::Index model = opscope::dialects::peft::testing::tiny_llama();
  std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* path : {"recipe.yaml", "config.json", "oneshot.py"}) {
    lc::looks_like_llmcompressor(path, text);
    for (const lc::Modifier& m : lc::read_llmcompressor_configs(path, text)) {
      lc::Resolution r = lc::resolve(m, model);
      lc::diagnose(m, r, model);
      for (const lc::Written& w : m.ignore) {
        lc::hover(m, r, model, w.range.start);
        lc::complete(m, model, w.range.start);
      }
      for (std::size_t i = 0; i < model.named_modules().size(); ++i)
        lc::explain_module(m, r, model, static_cast<int>(i));
      // The checkpoint it would save: every written scheme, format, block and group size.
      lc::hover(m, r, model, m.anchor.start);
      lc::size_line(lc::project_checkpoint({m}, {r}, model));
    }
  }
  return 0;
}
