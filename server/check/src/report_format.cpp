#include "report_format.h"

#include "opscope/support/version.h"

#include <nlohmann/json.hpp>

#include <map>
#include <vector>

namespace opscope::check {
namespace {

std::string dump(const nlohmann::json& value, int indent = -1) {
  // A config's bytes may not be UTF-8; JSON output must be.
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

class TextReporter : public Reporter {
public:
  explicit TextReporter(std::ostream& out) : out_(out) {}
  void add(const ReportedDiagnostic& d) override {
    out_ << d.file << ":" << d.start_line << ":" << d.start_column << ": " << d.severity << ": "
         << d.message << " [" << d.code << "]\n";
  }

private:
  std::ostream& out_;
};

class JsonLinesReporter : public Reporter {
public:
  explicit JsonLinesReporter(std::ostream& out) : out_(out) {}
  void add(const ReportedDiagnostic& d) override {
    out_ << dump(
                {{"file", d.file},
                 {"range",
                  {{"start", {d.start_line, d.start_column}}, {"end", {d.end_line, d.end_column}}}},
                 {"severity", d.severity},
                 {"code", d.code},
                 {"message", d.message}})
         << "\n";
  }

private:
  std::ostream& out_;
};

// https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions
// `::warning file=F,line=L,col=C,endLine=L,endColumn=C,title=T::message`; GitHub has
// error, warning and notice.
class GithubReporter : public Reporter {
public:
  explicit GithubReporter(std::ostream& out) : out_(out) {}
  void add(const ReportedDiagnostic& d) override {
    const char* command = d.severity == "error"     ? "error"
                          : d.severity == "warning" ? "warning"
                                                    : "notice";
    out_ << "::" << command << " file=" << escape_workflow_property(d.file)
         << ",line=" << d.start_line << ",col=" << d.start_column << ",endLine=" << d.end_line
         << ",endColumn=" << d.end_column
         << ",title=" << escape_workflow_property("opscope " + d.code)
         << "::" << escape_workflow_data(d.message) << "\n";
  }

private:
  std::ostream& out_;
};

// A file path as a SARIF artifactLocation.uri: a relative reference (GitHub resolves it
// against the repository root) or a file:// URI for an absolute path; bytes outside
// RFC 3986's unreserved set and '/' percent-encoded.
std::string path_to_uri(const std::string& path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string uri = !path.empty() && path[0] == '/' ? "file://" : "";
  for (unsigned char c : path) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (unreserved) {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 0xF];
    }
  }
  return uri;
}

// SARIF 2.1.0 (OASIS), the subset GitHub code scanning reads: one run, one rule per code,
// one result per diagnostic with its region. Columns are code points, as `columnKind` says.
class SarifReporter : public Reporter {
public:
  explicit SarifReporter(std::ostream& out) : out_(out) {}

  void add(const ReportedDiagnostic& d) override {
    auto [rule, inserted] = rule_index_.try_emplace(d.code, rules_.size());
    if (inserted)
      rules_.push_back({{"id", d.code}, {"shortDescription", {{"text", "opscope " + d.code}}}});
    const char* level = d.severity == "error"     ? "error"
                        : d.severity == "warning" ? "warning"
                                                  : "note";
    results_.push_back({{"ruleId", d.code},
                        {"ruleIndex", rule->second},
                        {"level", level},
                        {"message", {{"text", d.message}}},
                        {"locations",
                         {{{"physicalLocation",
                            {{"artifactLocation", {{"uri", path_to_uri(d.file)}}},
                             {"region",
                              {{"startLine", d.start_line},
                               {"startColumn", d.start_column},
                               {"endLine", d.end_line},
                               {"endColumn", d.end_column}}}}}}}}});
  }

  void finish() override {
    nlohmann::json run = {{"tool",
                           {{"driver",
                             {{"name", "opscope"},
                              {"version", support::version()},
                              {"semanticVersion", support::version()},
                              {"rules", rules_}}}}},
                          {"columnKind", "unicodeCodePoints"},
                          {"results", results_}};
    out_ << dump({{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                  {"version", "2.1.0"},
                  {"runs", nlohmann::json::array({run})}},
                 2)
         << "\n";
  }

private:
  std::ostream& out_;
  std::map<std::string, std::size_t> rule_index_;
  nlohmann::json rules_ = nlohmann::json::array();
  nlohmann::json results_ = nlohmann::json::array();
};

} // namespace

std::optional<ReportFormat> parse_report_format(const std::string& name) {
  if (name == "text")
    return ReportFormat::Text;
  if (name == "json")
    return ReportFormat::Json;
  if (name == "github")
    return ReportFormat::Github;
  if (name == "sarif")
    return ReportFormat::Sarif;
  return std::nullopt;
}

std::unique_ptr<Reporter> make_reporter(ReportFormat format, std::ostream& out) {
  switch (format) {
  case ReportFormat::Json:
    return std::make_unique<JsonLinesReporter>(out);
  case ReportFormat::Github:
    return std::make_unique<GithubReporter>(out);
  case ReportFormat::Sarif:
    return std::make_unique<SarifReporter>(out);
  case ReportFormat::Text:
    break;
  }
  return std::make_unique<TextReporter>(out);
}

std::string escape_workflow_data(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out += c;
  }
  return out;
}

std::string escape_workflow_property(const std::string& text) {
  std::string out;
  for (char c : escape_workflow_data(text)) {
    if (c == ':')
      out += "%3A";
    else if (c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

} // namespace opscope::check
