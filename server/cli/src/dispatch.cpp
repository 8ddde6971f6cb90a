#include "opscope/cli/dispatch.h"

#include "commands.h"
#include "opscope/cli/args.h"
#include "opscope/index/nearest.h"
#include "opscope/support/version.h"

#include <iostream>

namespace opscope::cli {
namespace {

void print_help(const std::vector<Command>& commands) {
  std::cout << "usage: opscope COMMAND [ARGS...]\n\n"
               "See which ops and modules a compression config targets: coreai-opt configs, PEFT\n"
               "(LoRA) configs, llm-compressor recipes and compressed-tensors checkpoints.\n\n"
               "commands:\n";
  size_t width = 0;
  for (const auto& command : commands)
    width = std::max(width, command.name.size());
  for (const auto& command : commands)
    std::cout << "  " << command.name << std::string(width + 2 - command.name.size(), ' ')
              << command.summary << "\n";
  std::cout << "\nRun `opscope COMMAND --help` for a command's options.\n"
               "Exit codes: 0 ok, 1 error in the input (model, pattern, file), 2 bad command "
               "line.\n";
}

} // namespace

std::vector<Command> builtin_commands() {
  return {
      {"summary", "print the model's module/op tree as coreai-opt's format_summary()", run_summary},
      {"query", "list the ops an op/module name or type key selects", run_query},
      {"inputs", "where each input of a module comes from", run_inputs},
      {"index", "inspect a model once and write its index file", run_index},
      {"export", "export a Python model to a .pt2 archive with your Python", run_export},
      {"propose", "propose a Quantizer config that fits a size budget with the least weight error",
       run_propose},
  };
}

int guarded(const std::string& command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << "opscope " << command << ": " << e.what() << " (see `opscope " << command
              << " --help`)\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "opscope: " << e.what() << "\n";
    return kExitUserError;
  }
}

int dispatch(int argc, char** argv, const std::vector<Command>& commands) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_help(commands);
    return kExitUsage;
  }
  const std::string& name = args.front();
  if (name == "--help" || name == "-h" || name == "help") {
    print_help(commands);
    return kExitOk;
  }
  if (name == "--version") {
    std::cout << "opscope " << support::version() << "\n";
    return kExitOk;
  }
  for (const auto& command : commands)
    if (command.name == name)
      return command.run({args.begin() + 1, args.end()});
  std::vector<std::string> names;
  for (const auto& command : commands)
    names.push_back(command.name);
  auto close = index::nearest_names(name, names, 1);
  std::cerr << "opscope: unknown command '" << name << "'"
            << (close.empty() ? "" : "; did you mean '" + close.front() + "'?")
            << " (see `opscope --help`)\n";
  return kExitUsage;
}

} // namespace opscope::cli
