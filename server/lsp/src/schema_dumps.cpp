#include "schema_dumps.h"

#include "opscope/model/model_source.h"

#include <filesystem>

namespace opscope::lsp {
namespace fs = std::filesystem;

SchemaDumps::~SchemaDumps() {
  for (auto& [key, child] : running_)
    child->kill();
}

void SchemaDumps::make(const workspace::SchemaDump& dump) {
  if (!tried_.insert(dump.key()).second)
    return;
  std::error_code ec;
  fs::create_directories(fs::path(dump.path).parent_path(), ec);
  std::vector<std::string> argv = model::schema_dump_command(dump.python, dump.temporary());
  std::vector<std::string> by_hand = model::schema_dump_command(dump.python, dump.path);
  log_.info("dumping the schema of " + dump.library + " " + dump.version + " with " + dump.python);
  running_[dump.key()] = ChildProcess::start(
      io_, argv, "", timeout_, [this, dump, by_hand](const ChildResult& result) {
        running_.erase(dump.key());
        std::string problem;
        if (!result.ok()) {
          std::error_code ignored;
          fs::remove(dump.temporary(), ignored);
          problem = workspace::schema_dump_failure(
              dump, result.describe("the export helper's schema command"), by_hand);
        } else if (auto why = workspace::install_schema_dump(dump))
          problem = workspace::schema_dump_failure(dump, *why, by_hand);
        if (problem.empty())
          log_.info("the schema of " + dump.library + " " + dump.version + " is in " + dump.path);
        done_(dump, problem);
      });
}

} // namespace opscope::lsp
