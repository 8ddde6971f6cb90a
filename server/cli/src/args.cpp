#include "opscope/cli/args.h"

#include <algorithm>

namespace opscope::cli {
namespace {

const OptionSpec* find_option(const CommandSpec& spec, const std::string& name) {
  for (const auto& option : spec.options)
    if (option.name == name || (!option.alias.empty() && option.alias == name))
      return &option;
  return nullptr;
}

std::string suggestion(const CommandSpec& spec, const std::string& name) {
  // A close option name helps with typos like --op_type or --compresor.
  std::string best;
  size_t best_score = 0;
  for (const auto& option : spec.options) {
    size_t common = 0;
    while (common < name.size() && common < option.name.size() &&
           name[common] == option.name[common])
      ++common;
    if (common > best_score && common >= 4) {
      best_score = common;
      best = option.name;
    }
  }
  return best.empty() ? "" : " (did you mean " + best + "?)";
}

} // namespace

std::string ParsedArgs::value(const std::string& name, const std::string& fallback) const {
  auto it = values.find(name);
  return it == values.end() || it->second.empty() ? fallback : it->second.back();
}

const std::vector<std::string>& ParsedArgs::all(const std::string& name) const {
  static const std::vector<std::string> none;
  auto it = values.find(name);
  return it == values.end() ? none : it->second;
}

ParsedArgs parse_args(const CommandSpec& spec, const std::vector<std::string>& args) {
  ParsedArgs parsed;
  bool only_positionals = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_positionals || arg.size() < 2 || arg[0] != '-') {
      parsed.positionals.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positionals = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      parsed.help = true;
      continue;
    }
    std::string name = arg;
    std::string inline_value;
    bool has_inline = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
      has_inline = true;
    }
    const OptionSpec* option = find_option(spec, name);
    if (option == nullptr)
      throw UsageError("unknown option " + name + " for `opscope " + spec.name + "`" +
                       suggestion(spec, name));
    std::string value;
    if (option->metavar.empty()) {
      if (has_inline)
        throw UsageError(option->name + " takes no value");
    } else if (has_inline) {
      value = inline_value;
    } else {
      if (i + 1 >= args.size())
        throw UsageError(option->name + " needs a value (" + option->metavar + ")");
      value = args[++i];
    }
    auto& slot = parsed.values[option->name];
    if (!slot.empty() && !option->repeatable && !option->metavar.empty())
      throw UsageError(option->name + " given twice");
    slot.push_back(value);
  }
  if (parsed.help)
    return parsed;
  if (parsed.positionals.size() < spec.positionals.size())
    throw UsageError("missing " + spec.positionals[parsed.positionals.size()] + " for `opscope " +
                     spec.name + "`");
  if (parsed.positionals.size() > spec.positionals.size())
    throw UsageError("unexpected argument '" + parsed.positionals[spec.positionals.size()] +
                     "' for `opscope " + spec.name + "`");
  return parsed;
}

std::string help_text(const CommandSpec& spec) {
  std::string text =
      "usage: opscope " + spec.name + " " + spec.usage + "\n\n" + spec.summary + "\n";
  if (!spec.options.empty()) {
    text += "\noptions:\n";
    std::vector<std::string> heads;
    size_t width = 0;
    for (const auto& option : spec.options) {
      std::string head = "  " + (option.alias.empty() ? "" : option.alias + ", ") + option.name +
                         (option.metavar.empty() ? "" : " " + option.metavar);
      width = std::max(width, head.size());
      heads.push_back(head);
    }
    for (size_t i = 0; i < spec.options.size(); ++i)
      text +=
          heads[i] + std::string(width + 2 - heads[i].size(), ' ') + spec.options[i].help + "\n";
    text +=
        "  -h, --help" + std::string(width + 2 > 12 ? width + 2 - 12 : 1, ' ') + "show this help\n";
  }
  if (!spec.details.empty())
    text += "\n" + spec.details + "\n";
  return text;
}

} // namespace opscope::cli
