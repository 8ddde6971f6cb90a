// LSP 3.17 structures the server uses, as plain structs with free to_json /
// from_json next to them (found by nlohmann through ADL). No logic here.
// from_json throws nlohmann::json::exception on a missing or mistyped field;
// the method table turns that into an InvalidParams reply.
#pragma once

#include "opscope/protocol/json_rpc.h"
#include "opscope/protocol/json_text.h"
#include "opscope/protocol/position.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::protocol {

void to_json(Json& j, const Position& p);
void from_json(const Json& j, Position& p);

struct Range {
  Position start;
  Position end;
  bool operator==(const Range&) const = default;
};
void to_json(Json& j, const Range& r);
void from_json(const Json& j, Range& r);

struct Location {
  std::string uri;
  Range range;
};
void to_json(Json& j, const Location& l);

struct TextDocumentIdentifier {
  std::string uri;
};
void from_json(const Json& j, TextDocumentIdentifier& t);

struct TextDocumentItem {
  std::string uri;
  std::string language_id;
  int version = 0;
  std::string text;
};
void from_json(const Json& j, TextDocumentItem& t);

struct VersionedTextDocumentIdentifier {
  std::string uri;
  std::optional<int> version;
};
void from_json(const Json& j, VersionedTextDocumentIdentifier& t);

struct TextDocumentContentChangeEvent {
  std::optional<Range> range; // absent: the whole document is replaced
  std::string text;
};
void from_json(const Json& j, TextDocumentContentChangeEvent& c);

struct DidOpenTextDocumentParams {
  TextDocumentItem text_document;
};
void from_json(const Json& j, DidOpenTextDocumentParams& p);

struct DidChangeTextDocumentParams {
  VersionedTextDocumentIdentifier text_document;
  std::vector<TextDocumentContentChangeEvent> content_changes;
};
void from_json(const Json& j, DidChangeTextDocumentParams& p);

struct DidCloseTextDocumentParams {
  TextDocumentIdentifier text_document;
};
void from_json(const Json& j, DidCloseTextDocumentParams& p);

struct DidSaveTextDocumentParams {
  TextDocumentIdentifier text_document;
};
void from_json(const Json& j, DidSaveTextDocumentParams& p);

struct TextDocumentPositionParams {
  TextDocumentIdentifier text_document;
  Position position;
};
void from_json(const Json& j, TextDocumentPositionParams& p);

struct CodeActionParams {
  TextDocumentIdentifier text_document;
  Range range;
  Json context; // diagnostics the client shows there; we recompute ours
};
void from_json(const Json& j, CodeActionParams& p);

enum class CompletionItemKind {
  Text = 1,
  Function = 3,
  Field = 5,
  Class = 7,
  Module = 9,
  Property = 10,
  Value = 12,
  Enum = 13,
  Keyword = 14,
  EnumMember = 20,
};

struct TextEdit {
  Range range;
  std::string new_text;
};
void to_json(Json& j, const TextEdit& e);

struct CompletionItem {
  std::string label;
  CompletionItemKind kind = CompletionItemKind::Text;
  std::string detail;
  std::string documentation; // markdown; omitted when empty
  std::string sort_text;
  std::string filter_text;
  std::optional<TextEdit> text_edit;
};
void to_json(Json& j, const CompletionItem& c);

struct CompletionList {
  bool is_incomplete = false;
  std::vector<CompletionItem> items;
  // Sent as itemDefaults.editRange (only to clients that support it): an item
  // whose edit has this range carries just its textEditText.
  std::optional<Range> default_edit_range;
};
void to_json(Json& j, const CompletionList& c);
// The same JSON as to_json + dump, written without a DOM (the typing path).
JsonText to_json_text(const CompletionList& c);

struct Hover {
  std::string markdown;
  std::optional<Range> range;
};
void to_json(Json& j, const Hover& h);
// The same JSON as to_json + dump, written without a DOM: a hover lists up to a
// hundred ops with links, and nlohmann's dump was a quarter of a hover request.
JsonText to_json_text(const Hover& h);

enum class DiagnosticSeverity { Error = 1, Warning = 2, Information = 3, Hint = 4 };

struct Diagnostic {
  Range range;
  DiagnosticSeverity severity = DiagnosticSeverity::Error;
  std::string code;
  std::string message;
  std::string source = "opscope";
  Json data; // carried back to us by codeAction (e.g. the suggested names)
};
void to_json(Json& j, const Diagnostic& d);
void from_json(const Json& j, Diagnostic& d);

struct PublishDiagnosticsParams {
  std::string uri;
  std::optional<int> version;
  std::vector<Diagnostic> diagnostics;
};
void to_json(Json& j, const PublishDiagnosticsParams& p);

struct WorkspaceEdit {
  std::string uri; // one document is all a quick fix edits
  std::vector<TextEdit> edits;
};
void to_json(Json& j, const WorkspaceEdit& e);

struct CodeAction {
  std::string title;
  std::string kind = "quickfix";
  std::vector<Diagnostic> diagnostics;
  bool is_preferred = false;
  WorkspaceEdit edit;
};
void to_json(Json& j, const CodeAction& a);

enum class MessageType { Error = 1, Warning = 2, Info = 3, Log = 4 };

struct LogMessageParams {
  MessageType type = MessageType::Log;
  std::string message;
};
void to_json(Json& j, const LogMessageParams& p);

struct CancelParams {
  RequestId id;
};
void from_json(const Json& j, CancelParams& p);

struct FileEvent {
  std::string uri;
  int type = 2; // 1 created, 2 changed, 3 deleted
};
struct DidChangeWatchedFilesParams {
  std::vector<FileEvent> changes;
};
void from_json(const Json& j, DidChangeWatchedFilesParams& p);

struct ExecuteCommandParams {
  std::string command;
  Json arguments; // array or null
};
void from_json(const Json& j, ExecuteCommandParams& p);

struct WorkspaceFolder {
  std::string uri;
  std::string name;
};

// The parts of the client's initialize request the server acts on.
struct InitializeParams {
  std::optional<int> process_id;
  std::optional<std::string> root_uri;
  std::vector<WorkspaceFolder> workspace_folders;
  Json initialization_options;
  std::vector<std::string> position_encodings; // general.positionEncodings
  bool supports_work_done_progress = false;    // window.workDoneProgress
  bool supports_configuration = false;         // workspace.configuration
  bool supports_watcher_registration = false; // workspace.didChangeWatchedFiles.dynamicRegistration
  // textDocument.completion.completionList.itemDefaults lists "editRange" (LSP 3.17).
  bool supports_completion_edit_range_default = false;
  bool supports_code_lens_refresh = false; // workspace.codeLens.refreshSupport
  // workspace.workspaceEdit.documentChanges and .changeAnnotationSupport: an edit may carry an
  // annotation that asks the user to confirm it (VS Code previews it as a diff first).
  bool supports_confirmed_edits = false;
  bool supports_disabled_code_actions = false; // textDocument.codeAction.disabledSupport
};
void from_json(const Json& j, InitializeParams& p);

// "$/progress" payloads for a work-done token.
// $/progress: a value from progress_begin / _report / _end under a token the client accepted.
struct ProgressParams {
  std::string token;
  Json value;
};
void to_json(Json& j, const ProgressParams& p);
Json progress_begin(const std::string& title, const std::string& message);
Json progress_report(const std::string& message);
Json progress_end(const std::string& message);

// file:// URIs <-> local paths (percent-encoding handled).
std::string uri_from_path(const std::string& path);
std::optional<std::string> path_from_uri(const std::string& uri);

} // namespace opscope::protocol
