// The `opscope` front end: one binary, one sub-command per job.
//
// Adding a sub-command: write `int run_xxx(const std::vector<std::string>& args)` in your
// library (args are those after the sub-command's name; return 0 ok, 1 user error, 2 usage
// error; cli::guarded() does the exception-to-exit-code part), link the library to
// `opscope` in server/CMakeLists.txt, and add one line to the table below.
#include "opscope/check/run_check.h"
#include "opscope/check/run_explain.h"
#include "opscope/cli/dispatch.h"
#include "opscope/lsp/run_lsp.h"
#include "opscope/trust/run_trust.h"

int main(int argc, char** argv) {
  std::vector<opscope::cli::Command> commands = opscope::cli::builtin_commands();
  // ---- sub-commands from other libraries: one line each ----
  commands.push_back({"lsp", "run the language server on stdin/stdout", opscope::lsp::run_lsp});
  commands.push_back({"check", "check configs as the editor does: fields, values, names, overlaps",
                      opscope::check::run_check});
  commands.push_back({"explain", "what a config does to each op or module, and the projected size",
                      opscope::check::run_explain});
  commands.push_back({"trust", "allow opscope to run what a project's opscope.yaml names",
                      opscope::trust::run_trust});
  return opscope::cli::dispatch(argc, argv, commands);
}
