// How `opscope check` prints its diagnostics: plain lines for people, JSON lines for
// scripts, GitHub workflow commands (annotations on a pull request) and SARIF 2.1.0
// (code scanning). One Reporter per run: `add` per diagnostic, `finish` once at the end
// (SARIF is one document, so it prints everything there).
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>

namespace opscope::check {

enum class ReportFormat { Text, Json, Github, Sarif };

// "text", "json", "github", "sarif"; nullopt for anything else.
std::optional<ReportFormat> parse_report_format(const std::string& name);

// One diagnostic, positions 1-based, columns in characters (Unicode code points), end
// exclusive.
struct ReportedDiagnostic {
  std::string file; // as the user named it
  int start_line = 1;
  int start_column = 1;
  int end_line = 1;
  int end_column = 1;
  std::string severity; // "error", "warning", "information"
  std::string code;     // "no-match"
  std::string message;
};

class Reporter {
public:
  virtual ~Reporter() = default;
  virtual void add(const ReportedDiagnostic& diagnostic) = 0;
  virtual void finish() {}
};

std::unique_ptr<Reporter> make_reporter(ReportFormat format, std::ostream& out);

// GitHub's workflow-command escaping (actions/toolkit, command.ts): the message...
std::string escape_workflow_data(const std::string& text);
// ...and a property value (file=, title=), where ':' and ',' separate the fields.
std::string escape_workflow_property(const std::string& text);

} // namespace opscope::check
