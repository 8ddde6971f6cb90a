#include "opscope/index/index.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <unordered_map>

namespace opscope::index {

namespace {
// coreai-opt's _FRAMEWORK_PATH_MARKERS: frames in PyTorch itself are never "the source".
constexpr std::array<std::string_view, 3> kFrameworkPathMarkers = {
    "torch/nn/modules/", "torch/nn/functional", "torch/_"};

bool is_framework_file(const std::string& file) {
  for (auto marker : kFrameworkPathMarkers)
    if (file.find(marker) != std::string::npos)
      return true;
  return false;
}

// named_modules() as the names show it (Index::named_modules): a trie of every called module
// and parameter owner and their dotted prefixes, numbered depth first with children in the
// order the tree lists them, as named_modules() numbers a model whose calls follow its
// registration order.
std::vector<ModuleObject> infer_named_modules(const Index& index) {
  struct Node {
    std::string name, type;
    std::vector<int> children;
  };
  std::vector<Node> nodes{{"", index.modules.front().type, {}}};
  std::unordered_map<std::string, int> at{{"", 0}};
  auto add = [&](const std::string& name, const std::string& type) {
    if (name.empty())
      return;
    int parent = 0;
    for (std::size_t dot = name.find('.');; dot = name.find('.', dot + 1)) {
      std::string prefix = name.substr(0, dot);
      auto [it, inserted] = at.emplace(prefix, static_cast<int>(nodes.size()));
      if (inserted) {
        nodes.push_back({prefix, {}, {}});
        nodes[static_cast<std::size_t>(parent)].children.push_back(it->second);
      }
      parent = it->second;
      if (dot == std::string::npos)
        break;
    }
    std::string& known = nodes[static_cast<std::size_t>(parent)].type;
    if (known.empty())
      known = type;
  };
  for (const Module& m : index.modules)
    add(m.name, m.type);
  for (const Parameter& p : index.parameters) {
    add(owner_module_name(p.name), "");
    for (const auto& alias : p.aliases)
      add(owner_module_name(alias), "");
  }
  // Depth-first renumbering (an explicit stack: a hostile index may nest deeply).
  std::vector<int> position(nodes.size(), -1), order, stack{0};
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    position[static_cast<std::size_t>(n)] = static_cast<int>(order.size());
    order.push_back(n);
    const std::vector<int>& children = nodes[static_cast<std::size_t>(n)].children;
    for (auto c = children.rbegin(); c != children.rend(); ++c)
      stack.push_back(*c);
  }
  std::vector<ModuleObject> objects;
  objects.reserve(order.size());
  for (int n : order) {
    Node& node = nodes[static_cast<std::size_t>(n)];
    ModuleObject& object = objects.emplace_back();
    object.name = std::move(node.name);
    object.type = std::move(node.type);
    for (int c : node.children)
      object.children.push_back(position[static_cast<std::size_t>(c)]);
  }
  return objects;
}
} // namespace

const SourceFrame* user_frame(const Op& op) {
  for (auto frame = op.source.rbegin(); frame != op.source.rend(); ++frame)
    if (!is_framework_file(frame->file))
      return &*frame;
  return nullptr;
}

std::int64_t Parameter::numel() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape)
    n *= d;
  return n;
}

int Parameter::element_bits() const {
  static const std::unordered_map<std::string_view, int> kBits = {
      {"float64", 64},      {"float32", 32},    {"float16", 16},        {"bfloat16", 16},
      {"int64", 64},        {"int32", 32},      {"int16", 16},          {"int8", 8},
      {"uint8", 8},         {"bool", 8},        {"uint16", 16},         {"uint32", 32},
      {"uint64", 64},       {"complex64", 64},  {"complex128", 128},    {"complex32", 32},
      {"float8_e4m3fn", 8}, {"float8_e5m2", 8}, {"float8_e4m3fnuz", 8}, {"float8_e5m2fnuz", 8},
      {"float8_e8m0fnu", 8}};
  auto it = kBits.find(dtype);
  return it == kBits.end() ? 0 : it->second;
}

bool ModuleObject::is_a(std::string_view qualified_class) const {
  return type == qualified_class || std::find(mro.begin(), mro.end(), qualified_class) != mro.end();
}

std::string owner_module_name(const std::string& parameter_name) {
  auto dot = parameter_name.rfind('.');
  return dot == std::string::npos ? std::string() : parameter_name.substr(0, dot);
}

const Parameter* Index::find_parameter(const std::string& name) const {
  auto it = parameter_by_name_.find(name);
  return it == parameter_by_name_.end() ? nullptr : &parameters[it->second];
}

const std::vector<int>& Index::op_parameters(std::size_t op) const {
  static const std::vector<int> kNone;
  return op < op_parameters_.size() ? op_parameters_[op] : kNone;
}

const std::vector<int>& Index::module_parameters(std::size_t module) const {
  static const std::vector<int> kNone;
  return module < module_parameters_.size() ? module_parameters_[module] : kNone;
}

const Op* Index::find_op(const std::string& name) const {
  auto it = op_by_name_.find(name);
  return it == op_by_name_.end() ? nullptr : &ops[it->second];
}

const Module* Index::find_module(const std::string& name) const {
  auto it = module_by_name_.find(name);
  return it == module_by_name_.end() ? nullptr : &modules[it->second];
}

int Index::module_object(std::size_t module) const {
  return module < module_object_of_.size() ? module_object_of_[module] : -1;
}

int Index::find_module_object(const std::string& name) const {
  auto it = module_object_by_name_.find(name);
  return it == module_object_by_name_.end() ? -1 : it->second;
}

const std::string& Index::canonical_name(std::size_t module) const {
  int object = module_object(module);
  return object >= 0 ? named_modules()[static_cast<std::size_t>(object)].name
                     : modules[module].name;
}

const std::string& Index::type_for(const Op& op, Compressor c) const {
  if (auto it = compressor_types.find(op.name); it != compressor_types.end())
    for (const auto& [compressor, type] : it->second)
      if (compressor == c)
        return type;
  return op.type;
}

void Index::rebuild_lookups() {
  op_by_name_.clear();
  module_by_name_.clear();
  op_by_name_.reserve(ops.size());
  for (int i = 0; i < static_cast<int>(ops.size()); ++i)
    op_by_name_.emplace(ops[i].name, i);
  for (int i = 0; i < static_cast<int>(modules.size()); ++i)
    module_by_name_.emplace(modules[i].name, i);
  parameter_by_name_.clear();
  module_parameters_.assign(modules.size(), {});
  for (int i = 0; i < static_cast<int>(parameters.size()); ++i) {
    const Parameter& p = parameters[i];
    parameter_by_name_.emplace(p.name, i);
    for (const auto& alias : p.aliases)
      parameter_by_name_.emplace(alias, i);
    // The owners under every name; a module owning one tensor under two names lists it once.
    auto add_owner = [&](const std::string& name) {
      if (auto it = module_by_name_.find(owner_module_name(name)); it != module_by_name_.end()) {
        auto& owned = module_parameters_[static_cast<std::size_t>(it->second)];
        if (owned.empty() || owned.back() != i)
          owned.push_back(i);
      }
    };
    add_owner(p.name);
    for (const auto& alias : p.aliases)
      add_owner(alias);
  }
  op_parameters_.assign(ops.size(), {});
  for (std::size_t o = 0; o < ops.size(); ++o)
    for (const auto& edge : ops[o].inputs)
      if (edge.is_state)
        if (auto it = parameter_by_name_.find(edge.producer); it != parameter_by_name_.end())
          op_parameters_[o].push_back(it->second);
  inferred_objects_.clear();
  if (module_objects.empty() && !modules.empty())
    inferred_objects_ = infer_named_modules(*this);
  const std::vector<ModuleObject>& objects = named_modules();
  module_object_by_name_.clear();
  names_outside_tree_.clear();
  for (int i = 0; i < static_cast<int>(objects.size()); ++i) {
    const ModuleObject& object = objects[static_cast<std::size_t>(i)];
    module_object_by_name_.emplace(object.name, i);
    for (const auto& alias : object.aliases)
      module_object_by_name_.emplace(alias, i);
    if (!module_by_name_.count(object.name))
      names_outside_tree_.emplace_back(object.name, i);
    for (const auto& alias : object.aliases)
      if (!module_by_name_.count(alias))
        names_outside_tree_.emplace_back(alias, i);
  }
  module_object_of_.assign(modules.size(), -1);
  calls_of_object_.assign(objects.size(), {});
  for (std::size_t m = 0; m < modules.size(); ++m) {
    module_object_of_[m] = find_module_object(modules[m].name);
    if (module_object_of_[m] >= 0)
      calls_of_object_[static_cast<std::size_t>(module_object_of_[m])].push_back(
          static_cast<int>(m));
  }
}

const std::vector<int>& Index::calls_of(int object) const {
  static const std::vector<int> kNone;
  return object >= 0 && static_cast<std::size_t>(object) < calls_of_object_.size()
             ? calls_of_object_[static_cast<std::size_t>(object)]
             : kNone;
}

const std::vector<ModuleObject>& Index::named_modules() const {
  return module_objects.empty() ? inferred_objects_ : module_objects;
}

const std::vector<std::pair<std::string, int>>& Index::names_outside_tree() const {
  return names_outside_tree_;
}

} // namespace opscope::index
