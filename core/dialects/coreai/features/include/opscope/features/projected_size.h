// The model's projected size once the config is applied (core/dialects/coreai/resolve/size.h,
// coreai-opt's bits_per_weight): as a code lens on the config's root key, and as text for hovers on
// the root key and on module keys. No LSP types: server/lsp turns the lens into the protocol's.
#pragma once

#include "opscope/features/model.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::features {

using dialects::CodeLens;

// The projected size above the root key: "projected size: 32.00 -> 4.13 bits per weight,
// 1.05 MB -> 136.20 KB". Empty without a model or a compressor root key, and when the size
// cannot be computed (the root key's hover says why). Computes the size if no one has yet
// for this config version. Then the weight error's lens (weight_error.h), when measured.
std::vector<CodeLens> code_lenses(const config::ConfigDocument& document, const Model* model);

// The hover's paragraph on the root key: the whole model's size; on a module key
// (module_name_configs / module_type_configs): the size of the modules it matches and those
// inside them. Nothing while the size is not computed yet (the background check computes it),
// or when the key matches no module holding tensors.
std::optional<std::string> root_size_text(const config::ConfigDocument& document,
                                          const Model* model);
std::optional<std::string> module_size_text(const config::ConfigDocument& document,
                                            const Model* model, const std::vector<int>& modules);

} // namespace opscope::features
