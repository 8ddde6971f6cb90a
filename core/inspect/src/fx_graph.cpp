#include "opscope/inspect/fx_graph.h"

#include "fx_namespace.h"
#include "lenient_json.h"
#include "program_document.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace opscope::inspect {
namespace {

using namespace lenient_json;

// Ops FX's dead-code elimination keeps although nobody uses their result:
// in-place and out= overloads (mutable schemas) and side-effectful calls.
bool is_impure(const std::string& target) {
  static const char* const kSideEffects[] = {
      "_assert",         "print",        "record_function", "profiler", "sym_constrain_range",
      "_make_dep_token", "with_effects", "higher_order",    "copy_"};
  for (const char* s : kSideEffects)
    if (target.find(s) != std::string::npos)
      return true;
  auto last = target.rfind('.');
  if (last == std::string::npos || last == 0)
    return false;
  if (target.compare(last + 1, std::string::npos, "out") == 0)
    return true;
  auto before = target.rfind('.', last - 1);
  std::string op = target.substr(before == std::string::npos ? 0 : before + 1,
                                 last - (before == std::string::npos ? 0 : before + 1));
  return !op.empty() && op.back() == '_';
}

void set_metadata(FxNode& node, const std::optional<element>& metadata) {
  node.torch_fn = text_of(metadata, "torch_fn");
  node.nn_module_stack = text_of(metadata, "nn_module_stack");
  node.stack_trace = text_of(metadata, "stack_trace");
}

// Heterogeneous lookup, so value names read from the document need no copy.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

class Builder {
public:
  explicit Builder(const Archive& archive) : archive_(archive) {}

  FxGraph build() {
    training_ = training_dialect();
    element gm = archive_.document->graph_module();
    element graph = field(gm, "graph");
    element signature = field(gm, "signature");
    element input_specs = field(signature, "input_specs");
    element graph_inputs = field(graph, "inputs");
    if (!graph_inputs.is_array() || !input_specs.is_array() ||
        elements_of(graph_inputs).size() != elements_of(input_specs).size())
      malformed("graph inputs and signature input_specs differ in length");

    add_placeholders(elements_of(graph_inputs), elements_of(input_specs));
    array nodes;
    if (field(graph, "nodes").get(nodes))
      malformed("graph nodes is not a list");
    for (element node : nodes)
      add_call(node);
    add_output(field(graph, "outputs"), field(signature, "output_specs"));
    rename_like_deepcopy();
    if (!training_)
      eliminate_dead_code();
    unlift();
    return finish();
  }

private:
  struct Pending {
    FxNode node;
    std::vector<int> args; // producers with repeats, in argument order
    bool erased = false;
    bool is_token = false;
    bool is_copy = false;  // a copy_ node the unlifting inserted
    bool unlifted = false; // a placeholder the unlifting turned into get_attr
  };

  [[noreturn]] void malformed(const std::string& what) const {
    throw ArchiveError(archive_.path + ": " + archive_.model_record + " is malformed (" + what +
                       "); export the model again with `" + kExportHint + "`");
  }

  element field(element object, const char* key) const {
    if (!object.is_object())
      malformed(std::string("expected an object holding '") + key + "'");
    auto value = member(object, key);
    if (!value)
      malformed(std::string("missing '") + key + "'");
    return *value;
  }

  bool training_dialect() const {
    element program = archive_.document->program;
    array verifiers;
    std::string_view first;
    if (!program["verifiers"].get(verifiers) && verifiers.size() > 0 && !verifiers.at(0).get(first))
      return first == "TRAINING";
    std::string_view dialect;
    if (!program["dialect"].get(dialect))
      return dialect == "TRAINING";
    return true;
  }

  int add_node(FxNode node) {
    int id = static_cast<int>(nodes_.size());
    nodes_.push_back({std::move(node), {}, false, false, false, false});
    return id;
  }

  void bind(const std::string& value_name, int node) { by_value_[value_name] = node; }

  // Collects the graph values an argument refers to, in argument order.
  void collect_refs(element arg, std::vector<int>& out) {
    object kinds;
    if (arg.get(kinds))
      return;
    for (auto [kind, value] : kinds) {
      if (kind == "as_tensor" || kind == "as_custom_obj") {
        ref(value, "name", out);
      } else if (kind == "as_sym_int" || kind == "as_sym_bool" || kind == "as_sym_float") {
        ref(value, "as_name", out);
      } else if (kind == "as_tensors") {
        for (element t : elements_of(value))
          ref(t, "name", out);
      } else if (kind == "as_sym_ints" || kind == "as_sym_bools" || kind == "as_sym_floats") {
        for (element t : elements_of(value))
          ref(t, "as_name", out);
      } else if (kind == "as_optional_tensors") {
        for (element t : elements_of(value))
          collect_refs(t, out);
      } else if (kind == "as_optional_tensor") {
        collect_refs(value, out);
      } else if (kind == "as_nested_tensors") {
        for (element list : elements_of(value))
          for (element t : elements_of(list))
            ref(t, "name", out);
      } else if (kind == "as_graph") {
        // A higher-order op's subgraph (torch.cond branches): the deserializer
        // registers it as a submodule and reads it through a get_attr node.
        std::string name(text_of(value, "name"));
        FxNode node;
        node.name = names_.create(name);
        node.op = FxOp::GetAttr;
        node.target = name;
        out.push_back(add_node(std::move(node)));
      } else if (kind == "as_string_to_argument") {
        object arguments;
        if (!value.get(arguments))
          for (auto [key, argument] : arguments)
            collect_refs(argument, out);
      }
    }
  }

  void ref(element value, const char* key, std::vector<int>& out) const {
    std::string_view name;
    if (value[key].get(name))
      return;
    auto found = by_value_.find(name);
    if (found == by_value_.end())
      malformed("unknown value '" + std::string(name) + "'");
    out.push_back(found->second);
  }

  // The member an input or output spec (a one-member union) holds.
  static std::string spec_kind(element spec) {
    object kinds;
    if (spec.get(kinds) || kinds.size() == 0)
      return {};
    return std::string(kinds.begin().key());
  }

  void add_placeholders(const std::vector<element>& inputs, const std::vector<element>& specs) {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      element input = inputs[i];
      element spec = specs[i];
      std::string kind = spec_kind(spec);
      std::string name;
      if (auto tensor = member(input, "as_tensor"))
        name = text_of(*tensor, "name");
      else if (auto obj = member(input, "as_custom_obj"))
        name = text_of(*obj, "name");
      else if (auto sym = member(input, "as_sym_int"); sym && has(*sym, "as_name"))
        name = text_of(*sym, "as_name");
      else if (auto token = member(input, "as_token"))
        name = text_of(*token, "name");
      if (name.empty()) {
        // A constant input: placeholder named by the signature, else arg{i}.
        std::string given;
        if (kind == "constant_input")
          given = text_of(member(spec, "constant_input"), "name");
        name = names_.create(given.empty() ? "arg" + std::to_string(i) : given);
      } else {
        names_.create(name);
      }
      FxNode node;
      node.name = name;
      node.op = FxOp::Placeholder;
      node.target = name;
      int id = add_node(std::move(node));
      bind(name, id);
      nodes_[id].is_token = kind == "token";
      lifted_.push_back(lifted_target(kind, spec));
    }
  }

  static std::string lifted_target(const std::string& kind, element spec) {
    auto body = member(spec, kind);
    if (kind == "parameter")
      return std::string(text_of(body, "parameter_name"));
    if (kind == "buffer")
      return std::string(text_of(body, "buffer_name"));
    if (kind == "tensor_constant")
      return std::string(text_of(body, "tensor_constant_name"));
    if (kind == "custom_obj")
      return std::string(text_of(body, "custom_obj_name"));
    return {};
  }

  std::vector<int> args_of(element node) {
    std::vector<int> positional, keyword;
    array inputs;
    if (node["inputs"].get(inputs))
      return positional;
    for (element input : inputs) {
      element arg;
      if (input["arg"].get(arg))
        continue;
      int64_t kind = 0;
      bool is_keyword = !input["kind"].get(kind) && kind == 2;
      collect_refs(arg, is_keyword ? keyword : positional);
    }
    positional.insert(positional.end(), keyword.begin(), keyword.end());
    return positional;
  }

  void add_call(element serialized) {
    if (!serialized.is_object())
      malformed("a graph node is not an object");
    std::string target(text_of(serialized, "target"));
    std::string given(text_of(serialized, "name"));
    std::optional<element> metadata = member(serialized, "metadata");
    std::vector<int> args = args_of(serialized);
    const std::vector<element> outputs = elements_of(member(serialized, "outputs"));

    FxNode node;
    node.op = FxOp::CallFunction;
    node.target = target;
    set_metadata(node, metadata);

    auto single_name = [&](element out) -> std::optional<std::string> {
      if (auto tensor = member(out, "as_tensor"))
        return std::string(text_of(*tensor, "name"));
      for (const char* sym : {"as_sym_int", "as_sym_bool", "as_sym_float"})
        if (auto value = member(out, sym); value && has(*value, "as_name"))
          return std::string(text_of(*value, "as_name"));
      return std::nullopt;
    };

    bool single_tensor_return = false;
    bool hop_multi = target.find("torch.ops.higher_order") != std::string::npos &&
                     outputs.size() == 1 && !has(outputs[0], "as_none") &&
                     !(!serialized["is_hop_single_tensor_return"].get(single_tensor_return) &&
                       single_tensor_return);

    if (outputs.size() == 1 && !hop_multi && single_name(outputs[0])) {
      std::string name = *single_name(outputs[0]);
      names_.create(given.empty() ? name : given);
      node.name = name;
      int id = add_node(std::move(node));
      nodes_[id].args = std::move(args);
      bind(name, id);
      return;
    }
    if (outputs.size() == 1 && has(outputs[0], "as_none")) {
      names_.create(given.empty() ? target_to_str(target) : given);
      node.name = names_.create(target_to_str(target) + "_unused");
      int id = add_node(std::move(node));
      nodes_[id].args = std::move(args);
      return;
    }
    node.name = names_.create(given.empty() ? target_to_str(target) : given);
    if (!given.empty())
      node.name = given;
    int id = add_node(std::move(node));
    nodes_[id].args = std::move(args);
    if (outputs.empty())
      return;
    if (auto tensors = member(outputs[0], "as_tensors");
        outputs.size() == 1 && tensors && !hop_multi)
      add_getitems(id, elements_of(*tensors), metadata, true);
    else
      add_getitems(id, outputs, metadata, false);
  }

  // deserialize_multiple_outputs / generate_getitems.
  void add_getitems(int parent, const std::vector<element>& values,
                    const std::optional<element>& metadata, bool bare_tensors) {
    for (element v : values) {
      std::optional<std::string> name;
      if (bare_tensors) {
        if (has(v, "name"))
          name = text_of(v, "name");
        else if (has(v, "as_name"))
          name = text_of(v, "as_name");
      } else if (auto tensor = member(v, "as_tensor")) {
        name = text_of(*tensor, "name");
      } else {
        for (const char* sym : {"as_sym_int", "as_sym_float"})
          if (auto value = member(v, sym); value && has(*value, "as_name"))
            name = text_of(*value, "as_name");
      }
      if (name) {
        names_.create(*name);
        bind(*name, add_getitem(*name, parent, metadata));
        continue;
      }
      if (has(v, "as_none")) {
        add_getitem(names_.create("as_none"), parent, metadata);
        continue;
      }
      for (const char* list : {"as_tensors", "as_sym_ints", "as_sym_floats", "as_ints", "as_floats",
                               "as_strings", "as_bools", "as_sym_bools"}) {
        if (auto items = member(v, list)) {
          int holder = add_getitem(names_.create("getitem"), parent, metadata);
          add_getitems(holder, elements_of(*items), metadata, true);
          break;
        }
      }
    }
  }

  int add_getitem(const std::string& name, int parent, const std::optional<element>& metadata) {
    FxNode node;
    node.name = name;
    node.op = FxOp::CallFunction;
    node.target = "getitem";
    set_metadata(node, metadata);
    int id = add_node(std::move(node));
    nodes_[id].args = {parent};
    return id;
  }

  void add_output(element outputs, element specs) {
    array outs;
    if (outputs.get(outs))
      malformed("graph outputs is not a list");
    output_values_.clear();
    for (element out : outs) {
      std::vector<int> refs;
      collect_refs(out, refs);
      output_values_.push_back(refs.empty() ? -1 : refs.front());
    }
    const std::vector<element> spec_list = elements_of(specs);
    for (std::size_t i = 0; i < output_values_.size(); ++i) {
      std::string kind = i < spec_list.size() ? spec_kind(spec_list[i]) : std::string();
      std::string mutated;
      if (kind == "buffer_mutation")
        mutated = text_of(member(spec_list[i], kind), "buffer_name");
      else if (kind == "user_input_mutation")
        mutated = text_of(member(spec_list[i], kind), "user_input_name");
      else if (kind == "parameter_mutation")
        mutated = text_of(member(spec_list[i], kind), "parameter_name");
      mutated_.push_back(mutated);
      output_is_token_.push_back(kind == "token");
    }
    FxNode node;
    node.name = "output";
    node.op = FxOp::Output;
    node.target = "output";
    output_ = add_node(std::move(node));
    for (std::size_t i = 0; i < output_values_.size(); ++i)
      if (output_values_[i] >= 0 && !(output_is_token_[i] && !training_))
        nodes_[output_].args.push_back(output_values_[i]);
  }

  // ep.module() deep-copies the graph, which re-creates every node through a
  // fresh namespace: names FX forbids (a forward argument called `input`)
  // become `input_1`. Later names (get_attr, copy_) come from that namespace.
  void rename_like_deepcopy() {
    FxNamespace copy;
    for (auto& p : nodes_)
      p.node.name = copy.create(p.node.name);
    names_ = std::move(copy);
  }

  // `_remove_effect_tokens` runs graph.eliminate_dead_code() on non-training programs.
  void eliminate_dead_code() {
    std::vector<int> use_count(nodes_.size(), 0);
    for (const auto& p : nodes_)
      for (int a : distinct(p.args))
        ++use_count[a];
    for (int i = static_cast<int>(nodes_.size()) - 1; i >= 0; --i) {
      auto& p = nodes_[i];
      if (p.node.op != FxOp::CallFunction || use_count[i] > 0 || is_impure(p.node.target))
        continue;
      p.erased = true;
      for (int a : distinct(p.args))
        --use_count[a];
    }
    for (auto& p : nodes_)
      if (p.node.op == FxOp::Placeholder && p.is_token)
        p.erased = true;
  }

  static std::vector<int> distinct(const std::vector<int>& ids) {
    std::vector<int> out;
    for (int id : ids)
      if (std::find(out.begin(), out.end(), id) == out.end())
        out.push_back(id);
    return out;
  }

  // _unlift_inputs_as_getattr + _insert_copy_for_mutations.
  void unlift() {
    std::unordered_map<std::string, int> unlifted_by_target;
    std::unordered_map<std::string, int> input_by_name;
    std::size_t placeholder = 0;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      auto& p = nodes_[i];
      if (p.node.op != FxOp::Placeholder)
        continue;
      const std::string& target = lifted_[placeholder++];
      if (target.empty()) {
        input_by_name[p.node.name] = static_cast<int>(i);
        continue;
      }
      p.node.op = FxOp::GetAttr;
      p.unlifted = true;
      p.node.name = names_.create(target);
      p.node.target = target;
      unlifted_by_target[target] = static_cast<int>(i);
    }

    // copy_ nodes go right before the output, in output-spec order.
    std::vector<int> user_outputs;
    std::unordered_map<int, int> copy_of_return;
    std::vector<Pending> copies;
    for (std::size_t i = 0; i < output_values_.size(); ++i) {
      if (mutated_[i].empty()) {
        if (output_values_[i] >= 0 && !(output_is_token_[i] && !training_))
          user_outputs.push_back(output_values_[i]);
        continue;
      }
      int mutated = -1;
      if (auto it = unlifted_by_target.find(mutated_[i]); it != unlifted_by_target.end())
        mutated = it->second;
      else if (auto in = input_by_name.find(mutated_[i]); in != input_by_name.end())
        mutated = in->second;
      if (mutated < 0 || output_values_[i] < 0)
        malformed("mutated value '" + mutated_[i] + "' not found");
      FxNode copy;
      copy.name = names_.create("copy_.default");
      copy.op = FxOp::CallFunction;
      copy.target = "torch.ops.aten.copy_.default";
      int copy_id = static_cast<int>(nodes_.size() + copies.size()) - 1; // before output
      copies.push_back({std::move(copy), {mutated, output_values_[i]}, false, false, true, false});
      copy_of_return[output_values_[i]] = copy_id;
    }
    original_output_args_ = nodes_.back().args;
    if (copies.empty())
      return;
    // Insert the copies before the output node (the last node).
    Pending output = std::move(nodes_.back());
    nodes_.pop_back();
    for (auto& c : copies)
      nodes_.push_back(std::move(c));
    output.args.clear();
    for (int v : user_outputs) {
      auto it = copy_of_return.find(v);
      output.args.push_back(it == copy_of_return.end() ? v : it->second);
    }
    nodes_.push_back(std::move(output));
  }

  // Users are kept in FX's order, which is not graph order: FX appends a
  // consumer to its producers' user lists whenever the consumer's arguments
  // are reassigned, and unlifting reassigns every consumer of a parameter.
  // Each (producer, consumer) pair gets a sequence number; re-registering it
  // moves it to the end, as Node._update_args_kwargs does.
  FxGraph finish() {
    const std::size_t count = nodes_.size();
    const int output = static_cast<int>(count) - 1;
    std::unordered_map<std::uint64_t, std::uint64_t> sequence;
    std::vector<std::vector<int>> consumers(count);
    std::uint64_t next = 0;
    constexpr std::uint64_t kRemoved = ~std::uint64_t{0};
    auto pair_key = [](int producer, int consumer) {
      return (static_cast<std::uint64_t>(producer) << 32) | static_cast<std::uint32_t>(consumer);
    };
    auto register_use = [&](int producer, int consumer) {
      auto [it, inserted] = sequence.try_emplace(pair_key(producer, consumer), next);
      if (inserted)
        consumers[producer].push_back(consumer);
      it->second = next++;
    };
    auto register_all = [&](int consumer, const std::vector<int>& args) {
      for (int producer : distinct(args))
        register_use(producer, consumer);
    };
    auto ordered_users = [&](int producer) {
      std::vector<int> users;
      for (int c : consumers[producer])
        if (sequence[pair_key(producer, c)] != kRemoved)
          users.push_back(c);
      std::sort(users.begin(), users.end(), [&](int a, int b) {
        return sequence[pair_key(producer, a)] < sequence[pair_key(producer, b)];
      });
      return users;
    };

    // Deserialization: nodes register their uses as they are created.
    for (std::size_t i = 0; i < count; ++i) {
      if (nodes_[i].erased || nodes_[i].is_copy)
        continue;
      register_all(static_cast<int>(i),
                   static_cast<int>(i) == output ? original_output_args_ : nodes_[i].args);
    }
    // Unlifting: every consumer of a lifted placeholder gets its arguments reassigned.
    for (std::size_t p = 0; p < count; ++p) {
      if (nodes_[p].erased || !nodes_[p].unlifted)
        continue;
      for (int user : ordered_users(static_cast<int>(p)))
        register_all(user, user == output ? original_output_args_ : nodes_[user].args);
    }
    // copy_ nodes, then the new output node replacing the old one.
    for (std::size_t i = 0; i < count; ++i)
      if (nodes_[i].is_copy)
        register_all(static_cast<int>(i), nodes_[i].args);
    for (int producer : distinct(original_output_args_))
      sequence[pair_key(producer, output)] = kRemoved;
    register_all(output, nodes_[output].args);

    std::vector<int> new_id(count, -1);
    FxGraph graph;
    graph.nodes.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      if (nodes_[i].erased)
        continue;
      new_id[i] = static_cast<int>(graph.nodes.size());
      graph.nodes.push_back(std::move(nodes_[i].node));
    }
    for (std::size_t i = 0; i < count; ++i) {
      if (new_id[i] < 0)
        continue;
      FxNode& node = graph.nodes[new_id[i]];
      for (int a : distinct(nodes_[i].args))
        if (new_id[a] >= 0)
          node.inputs.push_back(new_id[a]);
      for (int user : ordered_users(static_cast<int>(i)))
        if (new_id[user] >= 0)
          node.users.push_back(new_id[user]);
    }
    return graph;
  }

  const Archive& archive_;
  FxNamespace names_;
  std::vector<Pending> nodes_;
  std::unordered_map<std::string, int, StringHash, std::equal_to<>> by_value_;
  std::vector<std::string> lifted_;       // per placeholder: state FQN, or "" for user inputs
  std::vector<int> output_values_;        // per graph output: producing node or -1
  std::vector<int> original_output_args_; // the output's arguments before unlifting
  std::vector<std::string> mutated_;
  std::vector<bool> output_is_token_;
  int output_ = -1;
  bool training_ = true; // the program's dialect is TRAINING (no dead-code elimination)
};

} // namespace

FxGraph unlifted_graph(const Archive& archive) {
  if (!archive.document)
    throw ArchiveError(archive.path +
                       ": holds only the eager-mode record (exported with --mode eager alone, "
                       "which skips torch.export); for graph mode " +
                       export_both_modes_hint(archive.path) + ", or use --mode eager");
  return Builder(archive).build();
}

} // namespace opscope::inspect
