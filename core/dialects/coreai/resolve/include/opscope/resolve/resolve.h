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

#include "opscope/coreai/config/document.h"
#include "opscope/index/index.h"
#include "opscope/index/query.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace opscope::resolve {

// Who decided: an entry of the document, the written `global_config`, or coreai-opt's
// default global config (no `global_config` written: ModuleQuantizerConfig() defaults).
struct Decider {
  enum class Kind { DefaultGlobal, Global, Key };
  Kind kind = Kind::DefaultGlobal;
  int key = -1;   // Kind::Key: index into ConfigDocument::keys
  int object = 0; // the config object resolved (ConfigDocument::objects): whose global_config
  bool operator==(const Decider&) const = default;
};

struct ModuleDecision {
  int module = 0; // index into Index::modules
  Decider decider;
  bool direct = false;         // the entry matched this module itself (module-level specs apply)
  bool full_precision = false; // the deciding entry is null: nothing compressed here
  // coreai-opt's module priority (eager_utils.py, _get_module_compression_components_and_
  // priority): the module's position in module_config_dict, name level, then type level,
  // then global, each in insertion order (global: reversed named_modules order; this index's
  // order stands for named_modules'). Lower wins a tensor several modules read.
  int priority = 0;
};

struct OpDecision {
  int op = 0;      // index into Index::ops
  int module = 0;  // the innermost module of its stack (Index::modules)
  int primary = 0; // the first op of the pattern match that configures it (itself, or e.g.
                   // the conv before this bn / relu): its module and name decide
  Decider decider;
  Decider module_entry; // the module config `decider` belongs to (the primary's module's)
  bool full_precision = false;
  // Where the match configuring it stands in prepare()'s annotation order
  // (_sort_nodes_in_annotation_order; the node priority reconciliation reads): lower first.
  // Graph mode only.
  int rank = 0;
};

// A key whose pattern cannot be evaluated here (invalid, or Python-only regex syntax):
// it is treated as matching nothing, and the answer may differ from coreai-opt's.
struct Unresolved {
  int key = 0;
  std::string reason;
};

// A module_name_configs / module_type_configs entry coreai-opt loads (a key written twice:
// its last occurrence) and the modules it matches itself, ascending (their children go
// with them unless a stronger entry claimed them).
struct EntryMatch {
  int key = 0; // index into ConfigDocument::keys
  std::vector<int> modules;
};

// A tensor several configured ops read (tied weights: GPT-2's `transformer.wte.weight` is
// also `lm_head.weight`). prepare() annotates the ops in its sort order and every later reader
// takes the spec the first one gave the tensor (_annotation_utils.py,
// _get_state_node_shared_spec), so the entry deciding that first reader decides the tensor
// for all of them; the others' own weight specs do not apply to it.
struct SharedTensor {
  int parameter = 0;        // index into Index::parameters
  int decided_by = 0;       // index into Resolution::ops: the reader annotated first
  std::vector<int> readers; // indices into Resolution::ops, graph order (decided_by included)
};

struct Resolution {
  std::vector<ModuleDecision> modules; // one per Index::modules entry, same order
  std::vector<OpDecision> ops;         // the ops the compressor configures, graph order
  std::vector<Unresolved> unresolved;
  std::vector<EntryMatch> entries;  // module table entries: name keys, then type keys, dict order
  std::vector<SharedTensor> shared; // tensors read by more than one configured op
  index::Compressor compressor = index::Compressor::Quantizer; // whose ops `ops` lists
  int object = 0; // the config object resolved (ConfigDocument::objects)
};

// The Quantizer's resolution (document root `quantization_config`). Ops are those the
// Quantizer annotates: every op of a pattern match (conv -> bn -> relu, linear -> silu,
// add -> relu, ...), each configured by the match that wins it.
// `engine` (over `index`) keeps the compiled patterns between calls; without one, one is
// built for the call.
// `object`: the config object of the document resolved (a Python file may build several,
// each on its own); its keys only are read.
Resolution resolve_quantizer(const config::ConfigDocument& document, const index::Index& index,
                             const index::QueryEngine* engine = nullptr, int object = 0);

// Whether resolve_quantizer describes what coreai-opt does with this config on this index:
// a quantization_config run in graph mode (eager mode and the other compressors resolve
// differently).
bool resolves_in_graph_mode(const config::ConfigDocument& document, const index::Index& index);

// Whether opscope resolves this config on this index as coreai-opt does: a graph-mode
// Quantizer (resolves_in_graph_mode) or a compressor applied in eager mode (the palettizer,
// the pruner, the Quantizer with `execution_mode: eager`: resolves_eager_weights).
bool resolves(const config::ConfigDocument& document, const index::Index& index);

// The resolution of a config `resolves` accepts: resolve_eager_ops (pruner.h) in eager mode,
// resolve_quantizer in graph mode. The one place that picks between them.
Resolution resolve_config(const config::ConfigDocument& document, const index::Index& index,
                          const index::QueryEngine* engine = nullptr, int object = 0);

struct ProjectedSize; // size.h
struct EagerWeights;  // eager_weights.h

// One resolution per (config version, model), computed by whoever asks first (the
// background check or a hover) and shared by both; safe to call from several threads.
class SharedResolution {
public:
  std::shared_ptr<const Resolution> get(const config::ConfigDocument& document,
                                        const index::Index& index,
                                        const index::QueryEngine* engine) const;
  // The resolution if someone already computed it; never waits (a hover must not sit behind
  // the background check of a 20,000-key config).
  std::shared_ptr<const Resolution> ready() const;

  // The projected size (size.h) of this config version on this model, computed once (from
  // the resolution above where it needs the module decisions). Defined in size.cpp.
  std::shared_ptr<const ProjectedSize> size(const config::ConfigDocument& document,
                                            const index::Index& index,
                                            const index::QueryEngine* engine) const;
  // The size if someone already computed it; never waits.
  std::shared_ptr<const ProjectedSize> size_if_ready() const;

  // Each parameter's spec in eager mode (eager_weights.h: the eager Quantizer, the palettizer,
  // the pruner), computed once; the size above is computed from it. No parameters when the
  // config's values cannot be read. Defined in eager_weights.cpp.
  std::shared_ptr<const EagerWeights> weights(const config::ConfigDocument& document,
                                              const index::Index& index,
                                              const index::QueryEngine* engine) const;
  // The weights if someone already computed them; never waits.
  std::shared_ptr<const EagerWeights> weights_if_ready() const;

private:
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const Resolution> value_;
  // Lock order: size_mutex_, then weights_mutex_, then mutex_ (each reads the next).
  mutable std::mutex size_mutex_;
  mutable std::shared_ptr<const ProjectedSize> size_;
  mutable std::mutex weights_mutex_;
  mutable std::shared_ptr<const EagerWeights> weights_;
};

// The entry's path from the document root, e.g. {"quantization_config",
// "module_name_configs", "layer1", "op_type_config", "conv2d"}; empty for DefaultGlobal.
std::vector<std::string> decider_path(const config::ConfigDocument& document,
                                      const Decider& decider);
// 0-based line of the deciding key; -1 for DefaultGlobal.
int decider_line(const config::ConfigDocument& document, const Decider& decider);
// The entry is written `null` (its ops stay in full precision); never the default global.
bool decider_null(const config::ConfigDocument& document, const Decider& decider);

} // namespace opscope::resolve
