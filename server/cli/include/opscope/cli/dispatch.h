// The `opscope` sub-command table. A sub-command is a name, a one-line summary and a
// function taking the arguments after its name and returning the exit code:
//   0 success, 1 user error (bad model, bad pattern: message on stderr), 2 usage error.
// Other libraries add theirs with one line in server/main.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace opscope::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUserError = 1;
inline constexpr int kExitUsage = 2;

using CommandFunction = std::function<int(const std::vector<std::string>& args)>;

struct Command {
  std::string name;
  std::string summary;
  CommandFunction run;
};

// summary, query, inputs, index, export.
std::vector<Command> builtin_commands();

// `opscope [--help | --version | COMMAND ARGS...]`.
int dispatch(int argc, char** argv, const std::vector<Command>& commands);

// Runs a sub-command body, turning exceptions into the exit-code convention:
// cli::UsageError -> "opscope NAME: ... (see opscope NAME --help)" and 2; any other
// std::exception -> "opscope: <message>" and 1. Sub-commands from other libraries can use it.
int guarded(const std::string& command, const std::function<int()>& body);

} // namespace opscope::cli
