// The model index: every module and op of one inspected model, by the names a
// coreai-opt config must use. It is the contract between core/inspect (which
// builds it from an archive) and everything above (format, query, server),
// and it is what `opscope index` writes to disk. No LibTorch here.
#pragma once

#include "opscope/coreai/compressors.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace opscope::index {

// Bump when the serialised form changes incompatibly; readers refuse other versions.
// 2: parameters and buffers (Index::parameters).
// 3: module objects registered under several names (Index::module_objects).
inline constexpr int kIndexFormatVersion = 3;

// The modes and compressors are coreai-opt's (opscope/coreai/compressors.h).
using coreai::Compressor;
using coreai::Mode;

// One frame of the Python call stack that produced an op (`forward` frames only).
struct SourceFrame {
  std::string file;
  int line = 0;
  std::string function;
  std::string code; // the source line, stripped
};

// One level of the nn.Module nesting, outermost first. The root is `{"", type}`.
struct ModuleContext {
  std::string name; // normalised like named_modules(): "layers.0.attn"
  std::string type; // fully-qualified class: "torch.nn.modules.linear.Linear"
  bool operator==(const ModuleContext&) const = default;
};

// One input position of an op: who produced the tensor there.
struct InputEdge {
  std::string producer;    // op name, state name, graph input ("x"), "input_0", "untracked_0"
  std::optional<int> slot; // output slot of the producer; none for states and untracked
  bool is_state = false;   // a parameter or buffer (shown on the "op states" line)
  bool operator==(const InputEdge&) const = default;
};

// What an op is in the graph. Only `Call` ops are shown in the tree; the others
// exist so edges can name them (placeholders, the output, states).
enum class OpKind : std::uint8_t { Call, Input, Output, State };

struct Op {
  std::string name; // op_name_config matches this
  std::string type; // op_type_config matches this; empty if unknown
  OpKind kind = OpKind::Call;
  std::vector<ModuleContext> module_stack; // outermost first, root included
  std::vector<SourceFrame> source;         // outermost forward() first
  std::vector<InputEdge> inputs;           // every argument position, states interleaved
  // Output slot -> consumer op names, in slot order.
  std::vector<std::pair<int, std::vector<std::string>>> outputs;
  std::uint8_t compressors = 0; // bit set of Compressor values that register this op

  bool compressible_by(Compressor c) const {
    return c == Compressor::None || (compressors & static_cast<std::uint8_t>(c)) != 0;
  }
};

// Where data crosses a module boundary: an op inside and its input or output slot.
struct BoundaryEdge {
  std::string op;
  int slot = 0;
  bool operator==(const BoundaryEdge&) const = default;
};

struct Module {
  std::string name; // "" for the root
  std::string type;
  int parent = -1;           // index into Index::modules; -1 for the root
  std::vector<int> children; // indices into Index::modules, in first-seen order
  std::vector<int> ops;      // indices into Index::ops owned directly, in graph order
  // module_input_spec index -> ops (and their input slot) receiving it.
  std::vector<std::pair<int, std::vector<BoundaryEdge>>> inputs;
  // module_output_spec index -> op (and its output slot) producing it.
  std::vector<std::pair<int, BoundaryEdge>> outputs;
};

// One tensor of the model's state: a parameter or a buffer, as named_parameters() /
// named_buffers() list it. A tensor registered under several names (tied weights: GPT-2's
// `transformer.wte.weight` and `lm_head.weight`) is one Parameter with aliases.
struct Parameter {
  std::string name;                 // first name in named_parameters() order (the one edges use)
  std::vector<std::string> aliases; // every other name of the same tensor
  std::vector<std::int64_t> shape;
  std::string dtype; // torch's name without "torch.": "float32", "bfloat16", "int64"
  bool buffer = false;

  std::int64_t numel() const;
  // Bits one element takes in memory (torch's element_size() * 8); 0 for an unknown dtype.
  int element_bits() const;
};

// One module object of the model as coreai-opt names it (named_modules() order), recorded
// only for models where some object has a second name (`self.shortcut = self.encoder[0]`):
// the graph then names a call by the path it went through (`shortcut`), while coreai-opt
// names the object by its first name (`encoder.0`), matches name keys against every name
// and claims children through named_children() (alias paths included).
struct ModuleObject {
  std::string name;                 // canonical: first name in named_modules()
  std::string type;                 // fully-qualified class
  std::vector<std::string> aliases; // every other name (named_modules(remove_duplicate=False))
  std::vector<int> children;        // named_children(), indices into Index::module_objects
  // The class's MRO between itself and torch.nn.Module, both excluded (what isinstance sees
  // besides `type`: NonDynamicallyQuantizableLinear -> torch.nn.modules.linear.Linear). Empty
  // when the class derives from Module directly, or the archive predates it.
  std::vector<std::string> mro{};
  std::string model_type{};       // the root's Hugging Face config.model_type, when it has one
  bool output_embeddings = false; // the root model's get_output_embeddings()
  // The arguments of transformers' `@use_experts_implementation` on the class itself (its
  // source, as llm-compressor's linearize_moe reads them): a fused MoE experts module it splits.
  // Absent for any other class, and in archives that predate the record.
  struct ExpertsImplementation {
    bool transposed = false; // is_transposed: gate_up_proj is [experts, hidden, 2 * inter]
    bool gated = true;       // has_gate: gate_up_proj, else up_proj alone
    bool operator==(const ExpertsImplementation&) const = default;
  };
  std::optional<ExpertsImplementation> experts_implementation{};
  // `type` or one of `mro` is `qualified_class`.
  bool is_a(std::string_view qualified_class) const;
};

// The module that owns `name` directly: everything before the last dot ("" for the root).
std::string owner_module_name(const std::string& parameter_name);

// Where the model came from; used for display, caching and staleness checks.
struct Provenance {
  std::string archive;                   // path of the .pt2 as given
  std::string archive_hash;              // content hash of the archive
  std::string torch_version;             // from the archive
  std::vector<std::string> source_files; // files named by the ops' source frames
  // Why torch.export could not trace the model, when it could not: the index then has its
  // module names and state and no ops (python/opscope_export/untraced.py).
  std::string untraced{};
};

class Index {
public:
  Mode mode = Mode::Graph;
  Provenance provenance;
  std::vector<Op> ops;         // every op in graph order (Call, Input, Output, State)
  std::vector<Module> modules; // modules[0] is the root; parents precede children
  // Ops a compressor's registry files under another type than Op::type (eager Quantizer:
  // `x.add_()` has type "add_" but is registered as "add"): op name -> (compressor, type).
  std::unordered_map<std::string, std::vector<std::pair<Compressor, std::string>>> compressor_types;
  // Every parameter and buffer of the model, in named_parameters() then named_buffers()
  // order, including those of modules no op ran in. Empty for indexes of models exported
  // before parameters were recorded.
  std::vector<Parameter> parameters;
  // Every module object with its names, as the export helper recorded named_modules()
  // (containers forward() never calls included); empty in an archive made without it.
  std::vector<ModuleObject> module_objects;

  const Module& root() const { return modules.front(); }
  const std::string& model_type() const { return modules.front().type; }

  // Lookups; valid after rebuild_lookups() (the loaders call it).
  const Op* find_op(const std::string& name) const;
  const Module* find_module(const std::string& name) const;
  // By any of its names (aliases included).
  const Parameter* find_parameter(const std::string& name) const;
  // Indices into `parameters`: those op `op` reads (its state inputs, in argument order), and
  // those module `module` owns directly (recurse=False) under any of their names.
  const std::vector<int>& op_parameters(std::size_t op) const;
  const std::vector<int>& module_parameters(std::size_t module) const;
  // The model's named_modules(): module_objects, or where the archive did not record them,
  // what the names show: every called module, every module owning a parameter, and every
  // dotted prefix of those (a prefix of a module path is a module: `model.layers` of
  // `model.layers.0`). Types are known only for called modules. Never empty once looked up.
  const std::vector<ModuleObject>& named_modules() const;
  // Names of named_modules() objects (canonical or alias) that no module of the tree bears,
  // with the object's position: containers such as `model.layers`, modules that never run,
  // names only an alias path reaches. Name keys are tested against these besides the tree.
  const std::vector<std::pair<std::string, int>>& names_outside_tree() const;
  // The module object (index into named_modules()) module `module` is a call of; -1 when
  // none names it.
  int module_object(std::size_t module) const;
  // The modules of the tree that are calls of object `object` (none for a container).
  const std::vector<int>& calls_of(int object) const;
  // The object named `name` under any of its names; -1 if none.
  int find_module_object(const std::string& name) const;
  // The name coreai-opt gives module `module`: its object's canonical name, else its own.
  const std::string& canonical_name(std::size_t module) const;
  // The op type op_type_config matches for `op` when compressing with `c`.
  const std::string& type_for(const Op& op, Compressor c) const;
  void rebuild_lookups();

private:
  std::unordered_map<std::string, int> op_by_name_;
  std::unordered_map<std::string, int> module_by_name_;
  std::unordered_map<std::string, int> parameter_by_name_;
  std::vector<ModuleObject> inferred_objects_; // named_modules() when module_objects is empty
  std::vector<std::pair<std::string, int>> names_outside_tree_;
  std::unordered_map<std::string, int> module_object_by_name_; // every name of every object
  std::vector<int> module_object_of_;                          // per module
  std::vector<std::vector<int>> calls_of_object_;              // per named_modules() object
  std::vector<std::vector<int>> op_parameters_;                // derived from Op::inputs
  std::vector<std::vector<int>> module_parameters_;            // derived from the parameters' names
};

// The frame a user means by "where this op comes from": the innermost forward() frame that
// is not PyTorch's own code (coreai-opt's _FRAMEWORK_PATH_MARKERS). Null if there is none.
// The summary, queries, hover and go-to-definition all show this one frame.
const SourceFrame* user_frame(const Op& op);

using coreai::mode_supports;
using coreai::parse_compressor;
using coreai::parse_mode;
using coreai::to_string;

} // namespace opscope::index
