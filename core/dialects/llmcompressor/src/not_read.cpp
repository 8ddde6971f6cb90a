#include "not_read.h"

#include <algorithm>

namespace opscope::dialects::llmcompressor {

std::vector<dialects::Finding> not_read(const std::vector<Modifier>& modifiers) {
  bool none_read =
      std::none_of(modifiers.begin(), modifiers.end(), [](const Modifier& m) { return m.applied; });
  bool none_quantizes = std::none_of(modifiers.begin(), modifiers.end(), [](const Modifier& m) {
    return m.applied && quantizes(m.class_name);
  });
  std::vector<dialects::Finding> out;
  for (const Modifier& m : modifiers) {
    if (m.applied)
      continue;
    dialects::Finding f;
    f.range = m.anchor;
    f.severity = none_read ? dialects::Severity::Error : dialects::Severity::Warning;
    f.code = "recipe-not-read";
    f.message =
        "llm-compressor 0.14 reads modifiers only under `<name>_stage: <name>_modifiers:`; "
        "this `" +
        m.class_name + "` is never applied" +
        (quantizes(m.class_name) && none_quantizes ? " (the checkpoint is saved unquantized)"
                                                   : "") +
        ". Write it as `quant_stage:` / `  quant_modifiers:` / `    " + m.class_name + ": ...`";
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace opscope::dialects::llmcompressor
