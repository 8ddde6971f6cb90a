#include "opscope/index/serialize.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace opscope::index {
namespace {

using nlohmann::json;

constexpr const char* kMagic = "opscope-index";

const char* kind_name(OpKind kind) {
  switch (kind) {
  case OpKind::Call:
    return "call";
  case OpKind::Input:
    return "input";
  case OpKind::Output:
    return "output";
  case OpKind::State:
    return "state";
  }
  return "call";
}

OpKind parse_kind(const std::string& text) {
  if (text == "input")
    return OpKind::Input;
  if (text == "output")
    return OpKind::Output;
  if (text == "state")
    return OpKind::State;
  return OpKind::Call;
}

json module_stack_json(const std::vector<ModuleContext>& stack) {
  json out = json::array();
  for (const auto& ctx : stack)
    out.push_back({ctx.name, ctx.type});
  return out;
}

json op_json(const Op& op) {
  json inputs = json::array();
  for (const auto& edge : op.inputs) {
    json e = {{"producer", edge.producer}};
    if (edge.slot)
      e["slot"] = *edge.slot;
    if (edge.is_state)
      e["state"] = true;
    inputs.push_back(std::move(e));
  }
  json outputs = json::array();
  for (const auto& [slot, consumers] : op.outputs)
    outputs.push_back({slot, consumers});
  json source = json::array();
  for (const auto& f : op.source)
    source.push_back({f.file, f.line, f.function, f.code});
  return {{"name", op.name},
          {"type", op.type},
          {"kind", kind_name(op.kind)},
          {"stack", module_stack_json(op.module_stack)},
          {"source", source},
          {"inputs", inputs},
          {"outputs", outputs},
          {"compressors", op.compressors}};
}

json module_json(const Module& m) {
  json inputs = json::array();
  for (const auto& [spec, edges] : m.inputs) {
    json list = json::array();
    for (const auto& e : edges)
      list.push_back({e.op, e.slot});
    inputs.push_back({spec, list});
  }
  json outputs = json::array();
  for (const auto& [spec, e] : m.outputs)
    outputs.push_back({spec, {e.op, e.slot}});
  return {{"name", m.name}, {"type", m.type},   {"parent", m.parent}, {"children", m.children},
          {"ops", m.ops},   {"inputs", inputs}, {"outputs", outputs}};
}

Op op_from_json(const json& j) {
  Op op;
  op.name = j.at("name").get<std::string>();
  op.type = j.at("type").get<std::string>();
  op.kind = parse_kind(j.at("kind").get<std::string>());
  for (const auto& ctx : j.at("stack"))
    op.module_stack.push_back({ctx.at(0).get<std::string>(), ctx.at(1).get<std::string>()});
  for (const auto& f : j.at("source"))
    op.source.push_back({f.at(0).get<std::string>(), f.at(1).get<int>(), f.at(2).get<std::string>(),
                         f.at(3).get<std::string>()});
  for (const auto& e : j.at("inputs")) {
    InputEdge edge;
    edge.producer = e.at("producer").get<std::string>();
    if (e.contains("slot"))
      edge.slot = e.at("slot").get<int>();
    edge.is_state = e.value("state", false);
    op.inputs.push_back(std::move(edge));
  }
  for (const auto& o : j.at("outputs"))
    op.outputs.emplace_back(o.at(0).get<int>(), o.at(1).get<std::vector<std::string>>());
  op.compressors = j.at("compressors").get<std::uint8_t>();
  return op;
}

Module module_from_json(const json& j) {
  Module m;
  m.name = j.at("name").get<std::string>();
  m.type = j.at("type").get<std::string>();
  m.parent = j.at("parent").get<int>();
  m.children = j.at("children").get<std::vector<int>>();
  m.ops = j.at("ops").get<std::vector<int>>();
  for (const auto& in : j.at("inputs")) {
    std::vector<BoundaryEdge> edges;
    for (const auto& e : in.at(1))
      edges.push_back({e.at(0).get<std::string>(), e.at(1).get<int>()});
    m.inputs.emplace_back(in.at(0).get<int>(), std::move(edges));
  }
  for (const auto& out : j.at("outputs"))
    m.outputs.emplace_back(out.at(0).get<int>(), BoundaryEdge{out.at(1).at(0).get<std::string>(),
                                                              out.at(1).at(1).get<int>()});
  return m;
}

} // namespace

std::string to_json_text(const Index& index) {
  json ops = json::array();
  for (const auto& op : index.ops)
    ops.push_back(op_json(op));
  json modules = json::array();
  for (const auto& m : index.modules)
    modules.push_back(module_json(m));
  json doc = {{"format", kMagic},
              {"version", kIndexFormatVersion},
              {"mode", to_string(index.mode)},
              {"provenance",
               {{"archive", index.provenance.archive},
                {"archive_hash", index.provenance.archive_hash},
                {"torch_version", index.provenance.torch_version},
                {"source_files", index.provenance.source_files}}},
              {"modules", modules},
              {"ops", ops}};
  // Optional (only when some registry renames an op), so version-1 readers still agree.
  if (!index.compressor_types.empty()) {
    json renamed = json::object();
    for (const auto& [op, types] : index.compressor_types)
      for (const auto& [compressor, type] : types)
        renamed[op][to_string(compressor)] = type;
    doc["compressor_types"] = std::move(renamed);
  }
  return doc.dump();
}

Index from_json_text(const std::string& text, const std::string& origin) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("format", "") != kMagic)
    throw IndexFormatError(origin + ": not an opscope index file (make one with `opscope index "
                                    "MODEL.pt2 -o FILE`)");
  int version = doc.value("version", 0);
  if (version != kIndexFormatVersion)
    throw IndexFormatError(origin + ": index format version " + std::to_string(version) +
                           ", this opscope reads version " + std::to_string(kIndexFormatVersion) +
                           "; re-run `opscope index`");
  try {
    Index index;
    index.mode = parse_mode(doc.at("mode").get<std::string>()).value_or(Mode::Graph);
    const auto& prov = doc.at("provenance");
    index.provenance.archive = prov.value("archive", "");
    index.provenance.archive_hash = prov.value("archive_hash", "");
    index.provenance.torch_version = prov.value("torch_version", "");
    index.provenance.source_files = prov.value("source_files", std::vector<std::string>{});
    for (const auto& m : doc.at("modules"))
      index.modules.push_back(module_from_json(m));
    for (const auto& op : doc.at("ops"))
      index.ops.push_back(op_from_json(op));
    if (auto renamed = doc.find("compressor_types"); renamed != doc.end())
      for (const auto& [op, types] : renamed->items())
        for (const auto& [name, type] : types.items())
          if (auto compressor = parse_compressor(name))
            index.compressor_types[op].emplace_back(*compressor, type.get<std::string>());
    if (index.modules.empty())
      throw IndexFormatError(origin + ": index has no root module");
    index.rebuild_lookups();
    return index;
  } catch (const nlohmann::json::exception& e) {
    throw IndexFormatError(origin + ": corrupt index file (" + e.what() +
                           "); re-run `opscope index`");
  }
}

void save_index(const Index& index, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw IndexFormatError(path + ": cannot write the index file");
  out << to_json_text(index);
  if (!out.flush())
    throw IndexFormatError(path + ": writing the index file failed");
}

Index load_index(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw IndexFormatError(path + ": cannot read the index file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return from_json_text(buffer.str(), path);
}

bool looks_like_index_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[64] = {};
  in.read(head, sizeof head);
  std::string prefix(head, static_cast<size_t>(in.gcount()));
  return prefix.find(kMagic) != std::string::npos;
}

} // namespace opscope::index
