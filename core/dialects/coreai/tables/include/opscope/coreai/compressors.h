// coreai-opt's compressors as one table: every layer (config reader, index, worker,
// project resolution, command line, editor features) reads what a compressor is called,
// which config root key selects it, which execution modes it runs in and which ops it
// registers from here. Adding a compressor is one entry in kCompressors
// (src/compressors.cpp) plus its registries beside it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace opscope::coreai {

// coreai-opt's execution modes: graph (torch.export) and eager (a live forward pass).
enum class Mode { Graph, Eager };

// A bit set, so one index (per archive and mode) serves every compressor: each op
// records which compressors register it.
enum class Compressor : std::uint8_t {
  None = 0, // no compressor: every op counts
  Quantizer = 1,
  KMeansPalettizer = 2,
  MagnitudePruner = 4,
};

// One registered torch function and the op type its registry files it under
// (`_BaseSupportedOpsRegistry.get_func_type`): what `op_type_config` matches.
struct RegisteredFunction {
  std::string_view function; // torch.overrides.resolve_name: "torch.nn.functional.linear"
  std::string_view type;     // the registry's key: "linear"
};

// Which graph-mode (torch.export) ops a compressor registers.
struct GraphRegistry {
  // Nodes whose aten target is one of these, whatever their op type (weighted-module
  // patterns of the graph Quantizer).
  std::span<const std::string_view> aten_targets;
  // Nodes whose op type is one of these (first ops of the Quantizer's sequential patterns).
  std::span<const std::string_view> op_types;
  // Nodes whose op type is the name of one of these functions (`torch_fn` records
  // `function.linear` for F.linear), filed under the function's registered type.
  std::span<const RegisteredFunction> functions;
};

struct CompressorInfo {
  Compressor id;
  std::string_view name; // --compressor, opscope.yaml `compressor:`, index files
  // coreai-opt's class, as messages name it ("Quantizer"); its config classes are
  // <class>Config, Module<class>Config and Op<class>Config (config_class below).
  std::string_view class_name;
  std::string_view verb;     // what it does to the ops it configures: "quantizes"
  std::string_view root_key; // the config's top-level key: "quantization_config"
  std::string_view spec_key; // the top-level section for shared specs: "quantization_spec"
  bool graph_mode;           // coreai-opt runs it in graph mode
  bool eager_mode;           // ... and in eager mode
  // Its config only has weight specs (no op_input_spec, module_input_spec, ...).
  bool weight_only;
  std::span<const std::string_view> top_config_fields;    // beyond the common three
  std::span<const std::string_view> module_config_fields; // beyond the common ones
  GraphRegistry graph;                                    // the ops it registers in graph mode
  std::span<const RegisteredFunction> eager;              // ... and in eager mode
};

// Every compressor, in the order messages list them.
std::span<const CompressorInfo> compressors();
// The bits of every compressor together (the largest valid bit set).
std::uint8_t all_compressor_bits();
// The entry of `c`; null for Compressor::None.
const CompressorInfo* find(Compressor c);
// By root key ("quantization_config"), or null.
const CompressorInfo* find_by_root_key(std::string_view root_key);

// The three pydantic classes of a compressor's config: the whole config
// (QuantizerConfig), one module's (ModuleQuantizerConfig) and one op's (OpQuantizerConfig).
enum class ConfigLevel { Top, Module, Op };
struct ConfigClass {
  Compressor id;
  ConfigLevel level;
};
// "ModuleKMeansPalettizerConfig" -> {KMeansPalettizer, Module}; nothing for any other name.
std::optional<ConfigClass> find_config_class(std::string_view class_name);
// The inverse: {Quantizer, Top} -> "QuantizerConfig".
std::string config_class(const CompressorInfo& info, ConfigLevel level);

// "quantizer", ...; "none" for Compressor::None.
const char* to_string(Compressor c);
// The inverse of to_string ("none" included).
std::optional<Compressor> parse_compressor(std::string_view name);
// "quantizer, kmeans_palettizer or magnitude_pruner" (with `last` instead of " or ").
std::string compressor_names(std::string_view last = " or ");
// "quantization_config, kmeans_palettization_config or magnitude_pruning_config".
std::string root_key_names();

const char* to_string(Mode mode);
std::optional<Mode> parse_mode(std::string_view text);

// Whether coreai-opt runs `c` in `mode` (None: every mode). Callers asking for a pair
// outside this set must refuse with a clear message (see docs/EAGER_MODE.md).
bool mode_supports(Mode mode, Compressor c);
// The mode a compressor runs in when nothing says: graph if it can, else eager.
Mode default_mode(Compressor c);
// A config's `execution_mode` value as coreai-opt's ExecutionMode reads it: `graph`, `eager`,
// and `pt2e` / `PT2E`, its deprecated alias of graph; nothing for a value it refuses.
std::optional<Mode> execution_mode_value(std::string_view written);
// The mode coreai-opt runs a config in: the one rule every layer asks. A compressor without
// graph mode runs eager whatever is written; the Quantizer as its execution_mode says, graph
// when it says nothing (or something coreai-opt refuses, which the checks report).
Mode config_mode(Compressor root, const std::optional<std::string>& execution_mode);

// The type under which `c`'s eager registry files a torch function (by
// torch.overrides.resolve_name), or nothing when `c` does not register it.
std::optional<std::string_view> eager_registered_type(Compressor c, std::string_view function);
// The type under which `c` registers a graph-mode node with this aten target and op
// type, or nothing when it does not register it.
std::optional<std::string_view> graph_registered_type(Compressor c, std::string_view aten_target,
                                                      std::string_view op_type);

} // namespace opscope::coreai
