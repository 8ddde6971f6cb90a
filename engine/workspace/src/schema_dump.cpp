#include "opscope/workspace/schema_dump.h"

#include "opscope/schema/schema.h"
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
    text = support::read_regular_file(written, schema::kMaxDumpBytes);
  } catch (const support::FileReadError& e) {
    return problem(e.kind() == support::FileReadError::Kind::TooLarge
                       ? "it wrote more than " + std::to_string(schema::kMaxDumpBytes >> 20) +
                             " MB, which no " + dump.library + " schema needs"
                       : std::string("it wrote no dump (") + e.what() + ")");
  }
  auto parsed = schema::parse(text);
  if (auto* why = std::get_if<std::string>(&parsed))
    return problem("what it wrote is not a schema dump: " + *why);
  const auto& schema = std::get<std::shared_ptr<const schema::Schema>>(parsed);
  if (schema->coreai_opt_version != dump.version)
    return problem("it dumped " + dump.library + " " + schema->coreai_opt_version + ", not the " +
                   dump.version + " installed beside it");
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
