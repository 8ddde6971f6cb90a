#include "opscope/format/summary.h"

#include "opscope/format/op_view.h"
#include "rich_text.h"
#include "summary_common.h"

#include <algorithm>
#include <filesystem>

namespace opscope::format {
namespace {

using detail::Style;
using detail::StyledText;

// rich's Tree guides (TREE_GUIDES[0]): one per depth level, 4 cells each.
constexpr const char* kSpace = "    ";
constexpr const char* kContinue = "│   ";
constexpr const char* kFork = "├── ";
constexpr const char* kEnd = "└── ";

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i ? ", " : "") + parts[i];
  return out;
}

void append_boundaries(StyledText& label, const index::Module& module) {
  if (!module.inputs.empty())
    label.append("\n    module inputs:  " + detail::format_module_inputs(module), Style::Dim);
  if (!module.outputs.empty())
    label.append("\n    module outputs: " + detail::format_module_outputs(module), Style::Dim);
}

StyledText module_label(const index::Module& module) {
  StyledText label;
  label.append("■ ");
  label.append(module.name, Style::Green);
  label.append(" (");
  label.append(module.type, Style::Magenta);
  label.append(")");
  append_boundaries(label, module);
  return label;
}

StyledText root_label(const index::Module& root) {
  StyledText label;
  label.append("(");
  label.append(root.type, Style::Magenta);
  label.append(")");
  append_boundaries(label, root);
  return label;
}

StyledText op_label(const index::Op& op, const std::string& cwd) {
  StyledText label;
  label.append("◆ ");
  label.append(op.name, Style::BoldCyan);
  label.append(" [");
  label.append(op.type.empty() ? "?" : op.type, Style::Yellow);
  label.append("]");

  // Argument positions count states too (they match op_input_spec), only activations shown.
  std::vector<std::string> inputs;
  std::vector<std::string> states;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    if (op.inputs[i].is_state)
      states.push_back(state_display_name(op.inputs[i].producer));
    else
      inputs.push_back(std::to_string(i) + ": " + producer_label(op.inputs[i]));
  }
  if (!inputs.empty())
    label.append("\n  op inputs:  {" + join(inputs) + "}");
  if (!states.empty())
    label.append("\n  op states:  " + join(states));
  if (!op.outputs.empty()) {
    auto outputs = op.outputs;
    std::stable_sort(outputs.begin(), outputs.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> parts;
    for (const auto& [slot, consumers] : outputs)
      parts.push_back(std::to_string(slot) + ": [" + join(consumers) + "]");
    label.append("\n  op outputs: {" + join(parts) + "}");
  }
  if (auto source = op_source(op, cwd)) {
    label.append("\n  filepath:  " + source->path_line(), Style::Dim);
    if (!source->code.empty())
      label.append("\n  code:      " + source->code, Style::Dim);
  }
  return label;
}

class TreePrinter {
public:
  TreePrinter(const index::Index& index, const SummaryOptions& options, std::string cwd)
      : index_(index), options_(options), cwd_(std::move(cwd)) {}

  std::string print() {
    add(root_label(index_.root()), "", "", 0);
    children(index_.root(), "", 1);
    return out_;
  }

private:
  // Children of a module, as coreai-opt's _render_tree adds them: submodules, then ops.
  void children(const index::Module& module, const std::string& guides, int depth) {
    std::vector<int> ops = detail::visible_ops(index_, module, options_.compressor);
    size_t count = module.children.size() + ops.size();
    size_t position = 0;
    for (int child : module.children) {
      bool last = ++position == count;
      const auto& sub = index_.modules[child];
      add(module_label(sub), guides + (last ? kEnd : kFork), guides + (last ? kSpace : kContinue),
          depth);
      children(sub, guides + (last ? kSpace : kContinue), depth + 1);
    }
    for (int op : ops) {
      bool last = ++position == count;
      // Shown with the type the compressor registers it under (eager Quantizer: add_ -> add).
      index::Op shown = index_.ops[op];
      shown.type = index_.type_for(shown, options_.compressor);
      add(op_label(shown, cwd_), guides + (last ? kEnd : kFork),
          guides + (last ? kSpace : kContinue), depth);
    }
  }

  void add(const StyledText& label, const std::string& first_prefix, const std::string& rest_prefix,
           int depth) {
    auto lines = detail::wrap(label, options_.width - 4 * depth);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!out_.empty())
        out_ += '\n';
      out_ += i == 0 ? first_prefix : rest_prefix;
      out_ += detail::render(lines[i], options_.color);
    }
  }

  const index::Index& index_;
  const SummaryOptions& options_;
  std::string cwd_;
  std::string out_;
};

} // namespace

const std::string& legend() {
  static const std::string text =
      "Legend:\n"
      "  ■ module_name (module_type)  ◆ op_name [op_type]\n"
      "\n"
      "  op inputs:  {I: producer[N]}  —  I = op_input_spec index;"
      " N = output slot of the producing op\n"
      "  op states:     param_name    —  model parameter or buffer\n"
      "  op outputs: {N: [consumers]} —  N = output slot index;"
      " consumers = ops receiving that output\n"
      "  untracked_N                  —  input tensor whose producer was not intercepted"
      " (e.g. raw attribute or global tensor); still quantizable via op_input_spec\n"
      "  module inputs:  {I: [op[N], ...]}  —  I = module_input_spec index;"
      " op[N] = op and its input slot receiving data from outside; absent keys = "
      "non-quantizable\n"
      "  module outputs: {I: op[N]}         —  I = module_output_spec index;"
      " op[N] = op and its output slot leaving the module; absent keys = non-quantizable";
  return text;
}

std::string format_summary(const index::Index& index, const SummaryOptions& options) {
  if (detail::is_empty_summary(index, options.compressor))
    return kNoCompressibleOps;
  std::string cwd = options.cwd;
  if (cwd.empty()) {
    std::error_code ec;
    cwd = std::filesystem::current_path(ec).string();
  }
  return legend() + "\n\n" + TreePrinter(index, options, cwd).print();
}

} // namespace opscope::format
