// Writing the index file: a streaming writer straight from the structs (the nlohmann DOM in
// between cost a fifth of the worker). Format: docs/INDEX_FORMAT.md.
#include "index_file_format.h"
#include "json_writer.h"
#include "opscope/index/serialize.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <string_view>

namespace opscope::index {
namespace {

using file_format::kind_name;
using file_format::kMagic;

template <class Range, class WriteElement>
void write_array(JsonWriter& w, const Range& range, WriteElement&& write_element) {
  w.raw('[');
  bool first = true;
  for (const auto& element : range) {
    if (!first)
      w.raw(',');
    first = false;
    write_element(element);
  }
  w.raw(']');
}

void write_int_array(JsonWriter& w, const std::vector<int>& values) {
  write_array(w, values, [&](int v) { w.integer(v); });
}

void write_op(JsonWriter& w, const Op& op) {
  w.raw("{\"name\":");
  w.string(op.name);
  w.raw(",\"type\":");
  w.string(op.type);
  w.raw(",\"kind\":\"");
  w.raw(kind_name(op.kind));
  w.raw("\",\"stack\":");
  write_array(w, op.module_stack, [&](const ModuleContext& ctx) {
    w.raw('[');
    w.string(ctx.name);
    w.raw(',');
    w.string(ctx.type);
    w.raw(']');
  });
  w.raw(",\"source\":");
  write_array(w, op.source, [&](const SourceFrame& f) {
    w.raw('[');
    w.string(f.file);
    w.raw(',');
    w.integer(f.line);
    w.raw(',');
    w.string(f.function);
    w.raw(',');
    w.string(f.code);
    w.raw(']');
  });
  w.raw(",\"inputs\":");
  write_array(w, op.inputs, [&](const InputEdge& edge) {
    w.raw("{\"producer\":");
    w.string(edge.producer);
    if (edge.slot) {
      w.raw(",\"slot\":");
      w.integer(*edge.slot);
    }
    if (edge.is_state)
      w.raw(",\"state\":true");
    w.raw('}');
  });
  w.raw(",\"outputs\":");
  write_array(w, op.outputs, [&](const auto& output) {
    w.raw('[');
    w.integer(output.first);
    w.raw(',');
    write_array(w, output.second, [&](const std::string& consumer) { w.string(consumer); });
    w.raw(']');
  });
  w.raw(",\"compressors\":");
  w.integer(op.compressors);
  w.raw('}');
}

void write_edge(JsonWriter& w, const BoundaryEdge& e) {
  w.raw('[');
  w.string(e.op);
  w.raw(',');
  w.integer(e.slot);
  w.raw(']');
}

void write_module(JsonWriter& w, const Module& m) {
  w.raw("{\"name\":");
  w.string(m.name);
  w.raw(",\"type\":");
  w.string(m.type);
  w.raw(",\"parent\":");
  w.integer(m.parent);
  w.raw(",\"children\":");
  write_int_array(w, m.children);
  w.raw(",\"ops\":");
  write_int_array(w, m.ops);
  w.raw(",\"inputs\":");
  write_array(w, m.inputs, [&](const auto& input) {
    w.raw('[');
    w.integer(input.first);
    w.raw(',');
    write_array(w, input.second, [&](const BoundaryEdge& e) { write_edge(w, e); });
    w.raw(']');
  });
  w.raw(",\"outputs\":");
  write_array(w, m.outputs, [&](const auto& output) {
    w.raw('[');
    w.integer(output.first);
    w.raw(',');
    write_edge(w, output.second);
    w.raw(']');
  });
  w.raw('}');
}

void write_parameter(JsonWriter& w, const Parameter& p) {
  w.raw("{\"name\":");
  w.string(p.name);
  if (!p.aliases.empty()) {
    w.raw(",\"aliases\":");
    write_array(w, p.aliases, [&](const std::string& alias) { w.string(alias); });
  }
  w.raw(",\"shape\":");
  write_array(w, p.shape, [&](std::int64_t d) { w.integer(d); });
  w.raw(",\"dtype\":");
  w.string(p.dtype);
  if (p.buffer)
    w.raw(",\"buffer\":true");
  w.raw('}');
}

void write_module_object(JsonWriter& w, const ModuleObject& m) {
  w.raw("{\"name\":");
  w.string(m.name);
  w.raw(",\"type\":");
  w.string(m.type);
  if (!m.aliases.empty()) {
    w.raw(",\"aliases\":");
    write_array(w, m.aliases, [&](const std::string& alias) { w.string(alias); });
  }
  w.raw(",\"children\":");
  write_int_array(w, m.children);
  // Optional members (readers before them ignore them): what PEFT reads.
  if (!m.mro.empty()) {
    w.raw(",\"mro\":");
    write_array(w, m.mro, [&](const std::string& base) { w.string(base); });
  }
  if (!m.model_type.empty()) {
    w.raw(",\"model_type\":");
    w.string(m.model_type);
  }
  if (m.output_embeddings)
    w.raw(",\"output_embeddings\":true");
  if (const auto& experts = m.experts_implementation) {
    w.raw(experts->transposed ? ",\"experts_implementation\":{\"is_transposed\":true"
                              : ",\"experts_implementation\":{\"is_transposed\":false");
    w.raw(experts->gated ? ",\"has_gate\":true}" : ",\"has_gate\":false}");
  }
  w.raw('}');
}

// Sorted by op and compressor name, one type per compressor (the last given), so the file
// does not depend on hash-map order.
void write_compressor_types(JsonWriter& w, const Index& index) {
  std::map<std::string_view, std::map<std::string_view, std::string_view>> sorted;
  for (const auto& [op, types] : index.compressor_types)
    for (const auto& [compressor, type] : types)
      sorted[op][to_string(compressor)] = type;
  w.raw('{');
  bool first_op = true;
  for (const auto& [op, types] : sorted) {
    if (!first_op)
      w.raw(',');
    first_op = false;
    w.string(op);
    w.raw(":{");
    bool first_type = true;
    for (const auto& [compressor, type] : types) {
      if (!first_type)
        w.raw(',');
      first_type = false;
      w.string(compressor);
      w.raw(':');
      w.string(type);
    }
    w.raw('}');
  }
  w.raw('}');
}

// Keys in the documented order: `format` and `version` first, so a reader (or a person with
// `head`) learns what the file is from its first bytes.
void write_index(JsonWriter& w, const Index& index) {
  w.raw("{\"format\":\"");
  w.raw(kMagic);
  w.raw("\",\"version\":");
  w.integer(kIndexFormatVersion);
  w.raw(",\"mode\":");
  w.string(to_string(index.mode));
  w.raw(",\"provenance\":{\"archive\":");
  w.string(index.provenance.archive);
  w.raw(",\"archive_hash\":");
  w.string(index.provenance.archive_hash);
  w.raw(",\"torch_version\":");
  w.string(index.provenance.torch_version);
  w.raw(",\"source_files\":");
  write_array(w, index.provenance.source_files, [&](const std::string& f) { w.string(f); });
  if (!index.provenance.untraced.empty()) {
    w.raw(",\"untraced\":");
    w.string(index.provenance.untraced);
  }
  w.raw("},\"modules\":[");
  for (std::size_t i = 0; i < index.modules.size(); ++i) {
    if (i)
      w.raw(',');
    write_module(w, index.modules[i]);
    w.checkpoint();
  }
  w.raw("],\"ops\":[");
  for (std::size_t i = 0; i < index.ops.size(); ++i) {
    if (i)
      w.raw(',');
    write_op(w, index.ops[i]);
    w.checkpoint();
  }
  w.raw("],\"parameters\":[");
  for (std::size_t i = 0; i < index.parameters.size(); ++i) {
    if (i)
      w.raw(',');
    write_parameter(w, index.parameters[i]);
    w.checkpoint();
  }
  w.raw(']');
  // Optional (only when some registry renames an op), so version-1 readers still agree.
  if (!index.compressor_types.empty()) {
    w.raw(",\"compressor_types\":");
    write_compressor_types(w, index);
  }
  // Optional (only when some module object has two names).
  if (!index.module_objects.empty()) {
    w.raw(",\"module_objects\":[");
    for (std::size_t i = 0; i < index.module_objects.size(); ++i) {
      if (i)
        w.raw(',');
      write_module_object(w, index.module_objects[i]);
    }
    w.raw(']');
  }
  w.raw('}');
}

} // namespace

std::string to_json_text(const Index& index) {
  std::string text;
  JsonWriter writer(text);
  write_index(writer, index);
  return text;
}

namespace {
// Why a write failed, as the user can act on it: "disk full (ENOSPC)", "permission denied".
std::string write_problem(int error) {
  switch (error) {
  case ENOSPC:
    return "disk full (ENOSPC): no space left on the device";
  case EDQUOT:
    return "disk quota exceeded (EDQUOT)";
  case EROFS:
    return "read-only file system (EROFS)";
  case EACCES:
  case EPERM:
    return std::string("permission denied (") + std::strerror(error) + ")";
  case 0:
    return "write error";
  default:
    return std::strerror(error);
  }
}
} // namespace

void save_index(const Index& index, const std::string& path) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw IndexFormatError(path + ": cannot write the index file (" + write_problem(errno) + ")");
  std::string buffer;
  JsonWriter writer(buffer, &out);
  write_index(writer, index);
  writer.flush();
  out.flush();
  out.close(); // a full disk may only show when the file is closed
  if (out.fail())
    throw IndexFormatError(path + ": writing the index file failed (" + write_problem(errno) + ")");
}

} // namespace opscope::index
