#include "opscope/format/op_view.h"

#include <filesystem>
#include <vector>

namespace opscope::format {
namespace {

// posixpath.abspath split into components: joined to `cwd` when relative, "." and ".."
// resolved lexically.
std::vector<std::string> absolute_components(const std::string& path, const std::string& cwd) {
  std::string joined = path;
  if (path.empty() || path[0] != '/') {
    joined = cwd;
    joined += '/';
    joined += path;
  }
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= joined.size()) {
    size_t next = joined.find('/', pos);
    if (next == std::string::npos)
      next = joined.size();
    std::string part = joined.substr(pos, next - pos);
    if (part == "..") {
      if (!parts.empty())
        parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    pos = next + 1;
  }
  return parts;
}

// out += "/" + part, without the temporary: g++ 12 -O3 reports a false -Wrestrict on
// `const char* + std::string` (GCC bug 105329).
void append_component(std::string& out, const std::string& part) {
  if (!out.empty())
    out += '/';
  out += part;
}

std::string join_components(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts)
    append_component(out, part);
  return out;
}

std::string current_directory() {
  std::error_code ec;
  auto cwd = std::filesystem::current_path(ec);
  return ec ? std::string("/") : cwd.string();
}

} // namespace

std::string relative_path(const std::string& path, const std::string& start) {
  auto start_parts = absolute_components(start, "/");
  std::string start_dir(1, '/');
  start_dir += join_components(start_parts);
  auto path_parts = absolute_components(path, start_dir);
  size_t common = 0;
  while (common < start_parts.size() && common < path_parts.size() &&
         start_parts[common] == path_parts[common])
    ++common;
  std::string out;
  for (size_t i = common; i < start_parts.size(); ++i)
    append_component(out, "..");
  for (size_t i = common; i < path_parts.size(); ++i)
    append_component(out, path_parts[i]);
  return out.empty() ? "." : out;
}

std::optional<SourceLocation> op_source(const index::Op& op, const std::string& cwd) {
  const index::SourceFrame* frame = index::user_frame(op);
  if (!frame)
    return std::nullopt;
  std::string start = cwd.empty() ? current_directory() : cwd;
  return SourceLocation{relative_path(frame->file, start), frame->line, frame->code};
}

std::string state_display_name(const std::string& state_name) {
  auto dot = state_name.rfind('.');
  std::string last = dot == std::string::npos ? state_name : state_name.substr(dot + 1);
  return last.empty() ? state_name : last;
}

std::string producer_label(const index::InputEdge& edge) {
  if (!edge.slot)
    return edge.producer;
  return edge.producer + "[" + std::to_string(*edge.slot) + "]";
}

nlohmann::json op_json(const index::Op& op, const std::string& cwd) {
  using nlohmann::json;
  json stack = json::array();
  for (const auto& ctx : op.module_stack)
    stack.push_back({{"module_name", ctx.name}, {"module_type", ctx.type}});
  json inputs = json::array();
  json states = json::array();
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const auto& edge = op.inputs[i];
    json row = {{"position", i}, {"producer", edge.producer}, {"is_state", edge.is_state}};
    row["slot"] = edge.slot ? json(*edge.slot) : json(nullptr);
    inputs.push_back(std::move(row));
    if (edge.is_state)
      states.push_back(state_display_name(edge.producer));
  }
  json outputs = json::array();
  for (const auto& [slot, consumers] : op.outputs)
    outputs.push_back({{"slot", slot}, {"consumers", consumers}});
  json source = nullptr;
  if (auto where = op_source(op, cwd))
    source = {{"file", where->path}, {"line", where->line}, {"code", where->code}};
  return {{"op_name", op.name},
          {"op_type", op.type},
          {"module_stack", std::move(stack)},
          {"inputs", std::move(inputs)},
          {"outputs", std::move(outputs)},
          {"states", std::move(states)},
          {"source", std::move(source)}};
}

} // namespace opscope::format
