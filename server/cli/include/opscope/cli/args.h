// Sub-command argument parsing shared by every `opscope` sub-command: `--name value`,
// `--name=value`, short aliases (`-o`), repeatable options, flags and positionals.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace opscope::cli {

// Bad command line: exit code 2 with the message and a pointer to --help.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct OptionSpec {
  std::string name;    // "--mode"
  std::string alias;   // "-o", or empty
  std::string metavar; // "M" for options taking a value; empty for flags
  std::string help;
  bool repeatable = false;
};

struct CommandSpec {
  std::string name;    // "summary"
  std::string usage;   // "MODEL [options]"
  std::string summary; // one line for `opscope --help`
  std::string details; // shown after the options in `opscope NAME --help`
  std::vector<OptionSpec> options;
  std::vector<std::string> positionals; // names, all required
};

class ParsedArgs {
public:
  bool help = false;
  std::vector<std::string> positionals;
  std::map<std::string, std::vector<std::string>> values; // option name -> values / "" for flags

  bool has(const std::string& name) const { return values.count(name) != 0; }
  std::string value(const std::string& name, const std::string& fallback = "") const;
  const std::vector<std::string>& all(const std::string& name) const;
};

// Throws UsageError naming the offending argument. `--help`/`-h` sets `help` and skips
// the positional count check.
ParsedArgs parse_args(const CommandSpec& spec, const std::vector<std::string>& args);

std::string help_text(const CommandSpec& spec);

} // namespace opscope::cli
