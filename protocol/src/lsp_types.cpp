#include "opscope/protocol/lsp_types.h"

#include <cctype>
#include <cstdio>

namespace opscope::protocol {
namespace {

template <typename T> std::optional<T> optional_field(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null())
    return std::nullopt;
  return it->get<T>();
}

const Json* path_in(const Json& j, std::initializer_list<const char*> keys) {
  const Json* node = &j;
  for (const char* key : keys) {
    if (!node->is_object())
      return nullptr;
    auto it = node->find(key);
    if (it == node->end())
      return nullptr;
    node = &*it;
  }
  return node;
}

bool flag_at(const Json& j, std::initializer_list<const char*> keys) {
  const Json* node = path_in(j, keys);
  return node && node->is_boolean() && node->get<bool>();
}

} // namespace

void to_json(Json& j, const Position& p) {
  j = {{"line", p.line}, {"character", p.character}};
}
void from_json(const Json& j, Position& p) {
  p.line = j.at("line").get<int>();
  p.character = j.at("character").get<int>();
}

void to_json(Json& j, const Range& r) {
  j = {{"start", r.start}, {"end", r.end}};
}
void from_json(const Json& j, Range& r) {
  r.start = j.at("start").get<Position>();
  r.end = j.at("end").get<Position>();
}

void to_json(Json& j, const Location& l) {
  j = {{"uri", l.uri}, {"range", l.range}};
}

void from_json(const Json& j, TextDocumentIdentifier& t) {
  t.uri = j.at("uri").get<std::string>();
}

void from_json(const Json& j, TextDocumentItem& t) {
  t.uri = j.at("uri").get<std::string>();
  t.language_id = j.value("languageId", std::string());
  t.version = j.value("version", 0);
  t.text = j.at("text").get<std::string>();
}

void from_json(const Json& j, VersionedTextDocumentIdentifier& t) {
  t.uri = j.at("uri").get<std::string>();
  t.version = optional_field<int>(j, "version");
}

void from_json(const Json& j, TextDocumentContentChangeEvent& c) {
  c.range = optional_field<Range>(j, "range");
  c.text = j.at("text").get<std::string>();
}

void from_json(const Json& j, DidOpenTextDocumentParams& p) {
  p.text_document = j.at("textDocument").get<TextDocumentItem>();
}

void from_json(const Json& j, DidChangeTextDocumentParams& p) {
  p.text_document = j.at("textDocument").get<VersionedTextDocumentIdentifier>();
  p.content_changes = j.at("contentChanges").get<std::vector<TextDocumentContentChangeEvent>>();
}

void from_json(const Json& j, DidCloseTextDocumentParams& p) {
  p.text_document = j.at("textDocument").get<TextDocumentIdentifier>();
}

void from_json(const Json& j, DidSaveTextDocumentParams& p) {
  p.text_document = j.at("textDocument").get<TextDocumentIdentifier>();
}

void from_json(const Json& j, TextDocumentPositionParams& p) {
  p.text_document = j.at("textDocument").get<TextDocumentIdentifier>();
  p.position = j.at("position").get<Position>();
}

void from_json(const Json& j, CodeActionParams& p) {
  p.text_document = j.at("textDocument").get<TextDocumentIdentifier>();
  p.range = j.at("range").get<Range>();
  p.context = j.value("context", Json::object());
}

void to_json(Json& j, const TextEdit& e) {
  j = {{"range", e.range}, {"newText", e.new_text}};
}

namespace {

bool uses_default_range(const CompletionItem& c, const std::optional<Range>& default_range) {
  return c.text_edit && default_range && c.text_edit->range == *default_range;
}

} // namespace

void to_json(Json& j, const CompletionItem& c) {
  j = {{"label", c.label}, {"kind", static_cast<int>(c.kind)}};
  if (!c.detail.empty())
    j["detail"] = c.detail;
  if (!c.documentation.empty())
    j["documentation"] = {{"kind", "markdown"}, {"value", c.documentation}};
  if (!c.sort_text.empty())
    j["sortText"] = c.sort_text;
  if (!c.filter_text.empty())
    j["filterText"] = c.filter_text;
  if (c.text_edit)
    j["textEdit"] = *c.text_edit;
}

void to_json(Json& j, const CompletionList& c) {
  j = {{"isIncomplete", c.is_incomplete}, {"items", c.items}};
  if (!c.default_edit_range)
    return;
  j["itemDefaults"] = {{"editRange", *c.default_edit_range}};
  for (std::size_t i = 0; i < c.items.size(); ++i)
    if (uses_default_range(c.items[i], c.default_edit_range)) {
      j["items"][i].erase("textEdit");
      j["items"][i]["textEditText"] = c.items[i].text_edit->new_text;
    }
}

namespace {

// Keys in sorted order, as nlohmann's std::map-backed objects dump them.
void write_position(std::string& out, const Position& p) {
  JsonObjectWriter object(out);
  object.field("character", static_cast<std::int64_t>(p.character));
  object.field("line", static_cast<std::int64_t>(p.line));
}

void write_range(std::string& out, const Range& r) {
  JsonObjectWriter object(out);
  write_position(object.key("end"), r.end);
  write_position(object.key("start"), r.start);
}

void write_completion_item(std::string& out, const CompletionItem& c,
                           const std::optional<Range>& default_range) {
  JsonObjectWriter object(out);
  if (!c.detail.empty())
    object.field("detail", c.detail);
  if (!c.documentation.empty()) {
    JsonObjectWriter documentation(object.key("documentation"));
    documentation.field("kind", "markdown");
    documentation.field("value", c.documentation);
  }
  if (!c.filter_text.empty())
    object.field("filterText", c.filter_text);
  object.field("kind", static_cast<std::int64_t>(c.kind));
  object.field("label", c.label);
  if (!c.sort_text.empty())
    object.field("sortText", c.sort_text);
  if (uses_default_range(c, default_range)) {
    object.field("textEditText", c.text_edit->new_text);
  } else if (c.text_edit) {
    JsonObjectWriter edit(object.key("textEdit"));
    edit.field("newText", c.text_edit->new_text);
    write_range(edit.key("range"), c.text_edit->range);
  }
}

} // namespace

JsonText to_json_text(const CompletionList& c) {
  JsonText json;
  json.text.reserve(64 + c.items.size() * 256);
  {
    JsonObjectWriter list(json.text);
    list.field("isIncomplete", c.is_incomplete);
    if (c.default_edit_range) {
      JsonObjectWriter defaults(list.key("itemDefaults"));
      write_range(defaults.key("editRange"), *c.default_edit_range);
    }
    std::string& items = list.key("items");
    items += '[';
    for (std::size_t i = 0; i < c.items.size(); ++i) {
      if (i)
        items += ',';
      write_completion_item(items, c.items[i], c.default_edit_range);
    }
    items += ']';
  }
  return json;
}

void to_json(Json& j, const Hover& h) {
  j = {{"contents", {{"kind", "markdown"}, {"value", h.markdown}}}};
  if (h.range)
    j["range"] = *h.range;
}

JsonText to_json_text(const Hover& h) {
  JsonText json;
  json.text.reserve(64 + h.markdown.size() + h.markdown.size() / 8);
  {
    JsonObjectWriter hover(json.text);
    {
      JsonObjectWriter contents(hover.key("contents"));
      contents.field("kind", "markdown");
      contents.field("value", h.markdown);
    }
    if (h.range)
      write_range(hover.key("range"), *h.range);
  }
  return json;
}

void to_json(Json& j, const Diagnostic& d) {
  j = {{"range", d.range},
       {"severity", static_cast<int>(d.severity)},
       {"message", d.message},
       {"source", d.source}};
  if (!d.code.empty())
    j["code"] = d.code;
  if (!d.data.is_null())
    j["data"] = d.data;
}

void from_json(const Json& j, Diagnostic& d) {
  d.range = j.at("range").get<Range>();
  d.severity = static_cast<DiagnosticSeverity>(j.value("severity", 1));
  d.message = j.at("message").get<std::string>();
  if (auto code = j.find("code"); code != j.end())
    d.code = code->is_string() ? code->get<std::string>() : code->dump();
  d.source = j.value("source", std::string());
  d.data = j.value("data", Json());
}

void to_json(Json& j, const PublishDiagnosticsParams& p) {
  j = {{"uri", p.uri}, {"diagnostics", p.diagnostics}};
  if (p.version)
    j["version"] = *p.version;
}

void to_json(Json& j, const WorkspaceEdit& e) {
  j = {{"changes", {{e.uri, e.edits}}}};
}

void to_json(Json& j, const CodeAction& a) {
  j = {{"title", a.title}, {"kind", a.kind}, {"diagnostics", a.diagnostics}, {"edit", a.edit}};
  if (a.is_preferred)
    j["isPreferred"] = true;
}

void to_json(Json& j, const LogMessageParams& p) {
  j = {{"type", static_cast<int>(p.type)}, {"message", p.message}};
}

void to_json(Json& j, const ProgressParams& p) {
  j = {{"token", p.token}, {"value", p.value}};
}

void from_json(const Json& j, CancelParams& p) {
  const Json& id = j.at("id");
  if (id.is_number_integer())
    p.id = id.get<std::int64_t>();
  else
    p.id = id.get<std::string>();
}

void from_json(const Json& j, DidChangeWatchedFilesParams& p) {
  for (const auto& change : j.at("changes"))
    p.changes.push_back({change.at("uri").get<std::string>(), change.value("type", 2)});
}

void from_json(const Json& j, ExecuteCommandParams& p) {
  p.command = j.at("command").get<std::string>();
  p.arguments = j.value("arguments", Json::array());
}

void from_json(const Json& j, InitializeParams& p) {
  if (!j.is_object())
    throw Json::type_error::create(302, "initialize params must be an object", &j);
  p.process_id = optional_field<int>(j, "processId");
  p.root_uri = optional_field<std::string>(j, "rootUri");
  if (!p.root_uri) {
    if (auto root_path = optional_field<std::string>(j, "rootPath"))
      p.root_uri = uri_from_path(*root_path);
  }
  if (auto folders = j.find("workspaceFolders"); folders != j.end() && folders->is_array())
    for (const auto& folder : *folders)
      p.workspace_folders.push_back(
          {folder.at("uri").get<std::string>(), folder.value("name", std::string())});
  p.initialization_options = j.value("initializationOptions", Json());
  const Json& caps = j.contains("capabilities") ? j["capabilities"] : Json::object();
  if (const Json* encodings = path_in(caps, {"general", "positionEncodings"});
      encodings && encodings->is_array())
    for (const auto& e : *encodings)
      if (e.is_string())
        p.position_encodings.push_back(e.get<std::string>());
  p.supports_work_done_progress = flag_at(caps, {"window", "workDoneProgress"});
  p.supports_configuration = flag_at(caps, {"workspace", "configuration"});
  p.supports_code_lens_refresh = flag_at(caps, {"workspace", "codeLens", "refreshSupport"});
  const Json* annotations =
      path_in(caps, {"workspace", "workspaceEdit", "changeAnnotationSupport"});
  p.supports_confirmed_edits = flag_at(caps, {"workspace", "workspaceEdit", "documentChanges"}) &&
                               annotations && annotations->is_object();
  p.supports_disabled_code_actions =
      flag_at(caps, {"textDocument", "codeAction", "disabledSupport"});
  p.supports_watcher_registration =
      flag_at(caps, {"workspace", "didChangeWatchedFiles", "dynamicRegistration"});
  if (const Json* defaults =
          path_in(caps, {"textDocument", "completion", "completionList", "itemDefaults"});
      defaults && defaults->is_array())
    for (const auto& name : *defaults)
      if (name == "editRange")
        p.supports_completion_edit_range_default = true;
}

Json progress_begin(const std::string& title, const std::string& message) {
  return {{"kind", "begin"}, {"title", title}, {"message", message}, {"cancellable", false}};
}
Json progress_report(const std::string& message) {
  return {{"kind", "report"}, {"message", message}};
}
Json progress_end(const std::string& message) {
  return {{"kind", "end"}, {"message", message}};
}

std::string uri_from_path(const std::string& path) {
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

std::optional<std::string> path_from_uri(const std::string& uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.rfind(kScheme, 0) != 0)
    return std::nullopt;
  std::string_view rest = std::string_view(uri).substr(kScheme.size());
  std::size_t slash = rest.find('/'); // skip an authority such as "localhost"
  if (slash == std::string_view::npos)
    return std::nullopt;
  rest.remove_prefix(slash);
  std::string out;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(rest.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += rest[i];
    }
  }
  return out;
}

} // namespace opscope::protocol
