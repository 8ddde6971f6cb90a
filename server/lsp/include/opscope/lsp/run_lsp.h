// `opscope lsp [--port N] [--log-level error|warning|info|debug]`: the language
// server. The `opscope` front end dispatches its `lsp` sub-command here.
//
// Besides LSP 3.17 the server sends one custom notification, for status bars
// (the VS Code extension shows it):
//
//   "opscope/status" {state: "loading" | "ready" | "failed",
//                     model: string,    // the model as the project names it
//                     ops: number,      // ready: number of ops shown in the tree
//                     message: string}  // what is happening or what went wrong
//
// and answers two workspace/executeCommand commands: "opscope.showSummary"
// (argument: a config document URI; returns the model's summary tree as text)
// and "opscope.reloadModel" (rebuilds every model, or the one of the given URI).
#pragma once

#include <string>
#include <vector>

namespace opscope::lsp {

// `args` are the arguments after `lsp`. Returns the process exit code: 0 after
// shutdown + exit, 1 when the client exits (or disconnects) without shutdown,
// 2 for bad command-line arguments.
int run_lsp(const std::vector<std::string>& args);

} // namespace opscope::lsp
