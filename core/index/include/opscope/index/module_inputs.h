// `opscope inputs`: where each input of a module comes from. The op that produced the
// tensor, and the nearest module that produced it, looking through functional ops that
// belong to an enclosing module (the top-level F.relu between bn1 and conc).
#pragma once

#include "opscope/index/index.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::index {

// One module (or model input) that produced a module input.
struct InputOrigin {
  enum class Kind { Module, ModelInput, Untracked };
  Kind kind = Kind::Module;
  std::string op; // the op inside `module` producing it; the input's name ("x")
  std::string op_type;
  ModuleContext module;         // innermost module of `op` (Kind::Module only)
  std::vector<std::string> via; // functional ops walked through, from the module outwards
};

struct ModuleInput {
  int position = 0;                    // module_input_spec index
  std::vector<BoundaryEdge> consumers; // ops inside the module receiving it (and their slot)
  std::string producer;                // the op outside that produced it ("relu_1")
  std::string producer_type;           // its op type ("relu")
  std::vector<InputOrigin> origins;    // nearest producing modules, in argument order
};

// Empty optional when the index has no module of that name.
std::optional<std::vector<ModuleInput>> module_inputs(const Index& index,
                                                      const std::string& module_name);

} // namespace opscope::index
