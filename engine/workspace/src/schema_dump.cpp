#include "opscope/workspace/schema_dump.h"

#include "opscope/support/regular_file.h"

#include <filesystem>
#include <unistd.h>

namespace opscope::workspace {
namespace fs = std::filesystem;

std::optional<std::string> install_schema_dump(const SchemaDump& dump) {
  const std::string written = dump.temporary();
  std::error_code ec;
  auto problem = [&](std::string why) {
    fs::remove(written, ec);
    return std::optional<std::string>(std::move(why));
  };
  std::string text;
  try {
    text = support::read_regular_file(written, dump.max_bytes);
  } catch (const support::FileReadError& e) {
    return problem(e.kind() == support::FileReadError::Kind::TooLarge
                       ? "it wrote more than " + std::to_string(dump.max_bytes >> 20) +
                             " MB, which no " + dump.library + " schema needs"
                       : std::string("it wrote no dump (") + e.what() + ")");
  }
  if (!dump.why_not_a_dump)
    return problem("opscope cannot check a dump of " + dump.library);
  if (std::optional<std::string> why = dump.why_not_a_dump(text))
    return problem(std::move(*why));
  fs::rename(written, dump.path, ec); // atomic: a reader sees the whole dump or none
  if (ec)
    return problem("it cannot be moved into place (" + ec.message() + ")");
  return std::nullopt;
}

std::string schema_dump_failure(const SchemaDump& dump, const std::string& why,
                                const std::vector<std::string>& by_hand) {
  std::string command;
  for (const std::string& word : by_hand)
    command += (command.empty() ? "" : " ") + word;
  return "opscope cannot make the schema of " + dump.library + " " + dump.version + " (" +
         dump.path + ") with " + dump.python + ": " + why +
         "; configs are checked against the built-in " + dump.builtin_version +
         " schema until it is there. `" + command + "` makes it by hand";
}

} // namespace opscope::workspace
