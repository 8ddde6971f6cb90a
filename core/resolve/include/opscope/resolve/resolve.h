// What a coreai-opt config does to a model: for every module and every op the compressor
// configures, the config entry that decides it. Ported from coreai-opt 0.4.0 (Quantizer,
// graph mode):
//  - config/compression_config.py, CompressionConfig.build_module_config_dict and
//    _set_config_for_module: module_name_configs (last entry first), then
//    module_type_configs (last entry first), then global_config; an entry claims every
//    module it matches and, recursively, their children not yet claimed; a module
//    claimed once is never claimed again.
//  - _prepare_config_for_child: children inherit the op-level settings (specs,
//    op_name_config, op_type_config), not the module-level specs.
//  - quantization/_graph/quantizer.py, _AnnotationHandler._set_config_to_use_for_node and
//    _get_config_for_node: an op takes the config of the innermost module of its
//    nn_module_stack; inside it op_name_config (last match) beats op_type_config (last
//    match) beats the module config's own op specs.
// Pure: reads only the parsed document and the index. No LSP, no CLI.
#pragma once

#include "opscope/config/document.h"
#include "opscope/index/index.h"

#include <string>
#include <vector>

namespace opscope::resolve {

// Who decided: an entry of the document, the written `global_config`, or coreai-opt's
// default global config (no `global_config` written: ModuleQuantizerConfig() defaults).
struct Decider {
  enum class Kind { DefaultGlobal, Global, Key };
  Kind kind = Kind::DefaultGlobal;
  int key = -1; // Kind::Key: index into ConfigDocument::keys
  bool operator==(const Decider&) const = default;
};

struct ModuleDecision {
  int module = 0; // index into Index::modules
  Decider decider;
  bool direct = false;         // the entry matched this module itself (module-level specs apply)
  bool full_precision = false; // the deciding entry is null: nothing compressed here
};

struct OpDecision {
  int op = 0;     // index into Index::ops
  int module = 0; // the innermost module of its stack (Index::modules)
  Decider decider;
  bool full_precision = false;
};

// A key whose pattern cannot be evaluated here (invalid, or Python-only regex syntax):
// it is treated as matching nothing, and the answer may differ from coreai-opt's.
struct Unresolved {
  int key = 0;
  std::string reason;
};

struct Resolution {
  std::vector<ModuleDecision> modules; // one per Index::modules entry, same order
  std::vector<OpDecision> ops;         // the ops the compressor configures, graph order
  std::vector<Unresolved> unresolved;
};

// The Quantizer's resolution (document root `quantization_config`). Ops are those the
// index records as registered by the Quantizer; members of a compressor pattern other than
// its first op are not yet followed to the pattern's first op.
Resolution resolve_quantizer(const config::ConfigDocument& document, const index::Index& index);

// The entry's path from the document root, e.g. {"quantization_config",
// "module_name_configs", "layer1", "op_type_config", "conv2d"}; empty for DefaultGlobal.
std::vector<std::string> decider_path(const config::ConfigDocument& document,
                                      const Decider& decider);
// 0-based line of the deciding key; -1 for DefaultGlobal.
int decider_line(const config::ConfigDocument& document, const Decider& decider);

} // namespace opscope::resolve
