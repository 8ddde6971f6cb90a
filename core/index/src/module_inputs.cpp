#include "opscope/index/module_inputs.h"

#include <functional>
#include <unordered_set>

namespace opscope::index {
namespace {

// Walks producers backwards from one op outside the target module, collecting the
// nearest ops that belong to a module which is not an ancestor of the target.
class OriginWalk {
public:
  OriginWalk(const Index& index, std::unordered_set<std::string> ancestors)
      : index_(index), ancestors_(std::move(ancestors)) {}

  std::vector<InputOrigin> from(const std::string& producer) {
    std::vector<InputOrigin> origins;
    std::vector<std::string> path; // functional ops from the target back to here
    visit(producer, path, origins);
    return origins;
  }

private:
  void visit(const std::string& name, std::vector<std::string>& path,
             std::vector<InputOrigin>& origins) {
    if (!seen_.insert(name).second)
      return;
    const Op* op = index_.find_op(name);
    auto via = [&] { return std::vector<std::string>(path.rbegin(), path.rend()); };
    if (op == nullptr) {
      origins.push_back({InputOrigin::Kind::Untracked, name, "", {}, via()});
      return;
    }
    if (op->kind == OpKind::State)
      return;
    if (op->kind == OpKind::Input) {
      origins.push_back({InputOrigin::Kind::ModelInput, name, "", {}, via()});
      return;
    }
    // An op without a module stack (only in a damaged or hand-made index) belongs to the root.
    const ModuleContext owner =
        op->module_stack.empty() ? ModuleContext{} : op->module_stack.back();
    if (!ancestors_.count(owner.name)) {
      origins.push_back({InputOrigin::Kind::Module, name, op->type, owner, via()});
      return;
    }
    // A functional op of an enclosing module (F.relu at the top level): look through it.
    path.push_back(name);
    for (const auto& edge : op->inputs)
      if (!edge.is_state)
        visit(edge.producer, path, origins);
    path.pop_back();
  }

  const Index& index_;
  std::unordered_set<std::string> ancestors_;
  std::unordered_set<std::string> seen_;
};

} // namespace

std::optional<std::vector<ModuleInput>> module_inputs(const Index& index,
                                                      const std::string& module_name) {
  const Module* target = index.find_module(module_name);
  if (target == nullptr)
    return std::nullopt;
  std::unordered_set<std::string> ancestors;
  for (int parent = target->parent; parent >= 0; parent = index.modules[parent].parent)
    ancestors.insert(index.modules[parent].name);

  std::vector<ModuleInput> result;
  for (const auto& [position, consumers] : target->inputs) {
    ModuleInput input;
    input.position = position;
    input.consumers = consumers;
    if (!consumers.empty()) {
      const Op* consumer = index.find_op(consumers.front().op);
      int slot = consumers.front().slot;
      if (consumer && slot >= 0 && slot < static_cast<int>(consumer->inputs.size())) {
        input.producer = consumer->inputs[slot].producer;
        if (const Op* producer = index.find_op(input.producer))
          input.producer_type = producer->type;
        input.origins = OriginWalk(index, ancestors).from(input.producer);
      }
    }
    result.push_back(std::move(input));
  }
  std::stable_sort(result.begin(), result.end(),
                   [](const auto& a, const auto& b) { return a.position < b.position; });
  return result;
}

} // namespace opscope::index
