// The index file: written by a streaming writer and read by a pull reader straight into the
// structs (the nlohmann DOM in between cost a fifth of the worker and most of a warm start).
// Format: docs/INDEX_FORMAT.md.
#include "opscope/index/serialize.h"

#include "json_cursor.h"
#include "json_writer.h"

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <utility>

namespace opscope::index {
namespace {

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

// ---- writing ---------------------------------------------------------------------------------

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
  w.raw(']');
  // Optional (only when some registry renames an op), so version-1 readers still agree.
  if (!index.compressor_types.empty()) {
    w.raw(",\"compressor_types\":");
    write_compressor_types(w, index);
  }
  w.raw('}');
}

// ---- reading ---------------------------------------------------------------------------------

// Required members of a record, checked once the record is read.
class RequiredKeys {
public:
  RequiredKeys(std::initializer_list<const char*> names) {
    for (const char* name : names)
      names_[count_++] = name;
  }
  void saw(std::size_t i) { seen_ |= 1u << i; }
  void check(const JsonCursor& cursor, const char* record) const {
    for (std::size_t i = 0; i < count_; ++i)
      if (!(seen_ & (1u << i)))
        cursor.shape_error(std::string(record) + " without \"" + names_[i] + "\"");
  }

private:
  std::array<const char*, 8> names_{};
  std::size_t count_ = 0;
  unsigned seen_ = 0;
};

// Reads a fixed-length array ([a, b, ...]) calling read_element(i) for the first `count`
// elements; extra elements are skipped, as the DOM reader ignored them.
template <class ReadElement>
void read_tuple(JsonCursor& in, std::size_t count, const char* what, ReadElement&& read_element) {
  std::size_t seen = 0;
  in.array([&](std::size_t i) {
    if (i < count)
      read_element(i);
    else
      in.skip_value();
    seen = i + 1;
  });
  if (seen < count)
    in.shape_error(std::string(what) + " with too few elements");
}

void read_int_array(JsonCursor& in, std::vector<int>& out) {
  in.array([&](std::size_t) { out.push_back(in.int32()); });
}

void read_string_array(JsonCursor& in, std::vector<std::string>& out) {
  in.array([&](std::size_t) { out.push_back(in.string()); });
}

BoundaryEdge read_edge(JsonCursor& in) {
  BoundaryEdge edge;
  read_tuple(in, 2, "a boundary edge", [&](std::size_t i) {
    if (i == 0)
      in.string(edge.op);
    else
      edge.slot = in.int32();
  });
  return edge;
}

InputEdge read_input_edge(JsonCursor& in) {
  InputEdge edge;
  RequiredKeys required{"producer"};
  in.object([&](std::string_view key) {
    if (key == "producer") {
      in.string(edge.producer);
      required.saw(0);
    } else if (key == "slot") {
      edge.slot = in.int32();
    } else if (key == "state") {
      edge.is_state = in.boolean();
    } else {
      in.skip_value();
    }
  });
  required.check(in, "an op input");
  return edge;
}

void read_op(JsonCursor& in, Op& op, std::string& scratch) {
  RequiredKeys required{"name",   "type",   "kind",    "stack",
                        "source", "inputs", "outputs", "compressors"};
  in.object([&](std::string_view key) {
    if (key == "name") {
      in.string(op.name);
      required.saw(0);
    } else if (key == "type") {
      in.string(op.type);
      required.saw(1);
    } else if (key == "kind") {
      in.string(scratch);
      op.kind = parse_kind(scratch);
      required.saw(2);
    } else if (key == "stack") {
      in.array([&](std::size_t) {
        ModuleContext& ctx = op.module_stack.emplace_back();
        read_tuple(in, 2, "a module stack entry",
                   [&](std::size_t i) { in.string(i == 0 ? ctx.name : ctx.type); });
      });
      required.saw(3);
    } else if (key == "source") {
      in.array([&](std::size_t) {
        SourceFrame& f = op.source.emplace_back();
        read_tuple(in, 4, "a source frame", [&](std::size_t i) {
          if (i == 0)
            in.string(f.file);
          else if (i == 1)
            f.line = in.int32();
          else
            in.string(i == 2 ? f.function : f.code);
        });
      });
      required.saw(4);
    } else if (key == "inputs") {
      in.array([&](std::size_t) { op.inputs.push_back(read_input_edge(in)); });
      required.saw(5);
    } else if (key == "outputs") {
      in.array([&](std::size_t) {
        auto& output = op.outputs.emplace_back();
        read_tuple(in, 2, "an op output", [&](std::size_t i) {
          if (i == 0)
            output.first = in.int32();
          else
            read_string_array(in, output.second);
        });
      });
      required.saw(6);
    } else if (key == "compressors") {
      op.compressors = static_cast<std::uint8_t>(in.integer());
      required.saw(7);
    } else {
      in.skip_value();
    }
  });
  required.check(in, "an op");
}

void read_module(JsonCursor& in, Module& m) {
  RequiredKeys required{"name", "type", "parent", "children", "ops", "inputs", "outputs"};
  in.object([&](std::string_view key) {
    if (key == "name") {
      in.string(m.name);
      required.saw(0);
    } else if (key == "type") {
      in.string(m.type);
      required.saw(1);
    } else if (key == "parent") {
      m.parent = in.int32();
      required.saw(2);
    } else if (key == "children") {
      read_int_array(in, m.children);
      required.saw(3);
    } else if (key == "ops") {
      read_int_array(in, m.ops);
      required.saw(4);
    } else if (key == "inputs") {
      in.array([&](std::size_t) {
        auto& input = m.inputs.emplace_back();
        read_tuple(in, 2, "a module input", [&](std::size_t i) {
          if (i == 0)
            input.first = in.int32();
          else
            in.array([&](std::size_t) { input.second.push_back(read_edge(in)); });
        });
      });
      required.saw(5);
    } else if (key == "outputs") {
      in.array([&](std::size_t) {
        auto& output = m.outputs.emplace_back();
        read_tuple(in, 2, "a module output", [&](std::size_t i) {
          if (i == 0)
            output.first = in.int32();
          else
            output.second = read_edge(in);
        });
      });
      required.saw(6);
    } else {
      in.skip_value();
    }
  });
  required.check(in, "a module");
}

void read_provenance(JsonCursor& in, Provenance& prov) {
  in.object([&](std::string_view key) {
    if (key == "archive")
      in.string(prov.archive);
    else if (key == "archive_hash")
      in.string(prov.archive_hash);
    else if (key == "torch_version")
      in.string(prov.torch_version);
    else if (key == "source_files")
      read_string_array(in, prov.source_files);
    else
      in.skip_value();
  });
}

void read_compressor_types(JsonCursor& in, Index& index) {
  std::string compressor_name;
  in.object([&](std::string_view op) {
    std::string op_name(op); // `op` may point into a buffer the inner object reuses
    in.object([&](std::string_view name) {
      compressor_name.assign(name);
      std::string type = in.string();
      if (auto compressor = parse_compressor(compressor_name))
        index.compressor_types[op_name].emplace_back(*compressor, std::move(type));
    });
  });
}

// What the top level of a file says about itself, read alongside the body so that a file of
// another version or kind is named as such rather than as corrupt.
struct Header {
  std::string format;
  long long version = 0;
  bool has_mode = false, has_provenance = false, has_modules = false, has_ops = false;
};

[[noreturn]] void throw_not_an_index(const std::string& origin) {
  throw IndexFormatError(origin + ": not an opscope index file (make one with `opscope index "
                                  "MODEL.pt2 -o FILE`)");
}

[[noreturn]] void throw_corrupt(const std::string& origin, std::size_t offset,
                                const std::string& what) {
  throw IndexFormatError(origin + ": corrupt index file (at byte " + std::to_string(offset) + ": " +
                         what + "); re-run `opscope index`");
}

} // namespace

std::string to_json_text(const Index& index) {
  std::string text;
  JsonWriter writer(text);
  write_index(writer, index);
  return text;
}

Index from_json_text(const std::string& text, const std::string& origin) {
  JsonCursor in(text);
  Index index;
  Header header;
  // The first error in a member the format defines: reported only if the file turns out to
  // be a current-version index (otherwise "not an index" or "other version" says more).
  std::optional<JsonReadError> shape_error;
  // Reads one top-level member; on a shape error, remembers it and skips the member so the
  // header keys after it are still read.
  auto member = [&](auto&& read) {
    std::size_t start = in.offset();
    try {
      read();
    } catch (const JsonReadError& e) {
      if (e.kind == JsonReadError::Kind::Syntax)
        throw;
      if (!shape_error)
        shape_error = e;
      in.rewind(start);
      in.skip_value();
    }
  };
  try {
    if (in.peek() != '{')
      throw_not_an_index(origin);
    std::string scratch;
    in.object([&](std::string_view key) {
      if (key == "format") {
        member([&] { header.format = in.string(); });
      } else if (key == "version") {
        member([&] { header.version = in.integer(); });
      } else if (key == "mode") {
        member([&] {
          in.string(scratch);
          index.mode = parse_mode(scratch).value_or(Mode::Graph);
          header.has_mode = true;
        });
      } else if (key == "provenance") {
        member([&] {
          read_provenance(in, index.provenance);
          header.has_provenance = true;
        });
      } else if (key == "modules") {
        member([&] {
          index.modules.clear();
          in.array([&](std::size_t) { read_module(in, index.modules.emplace_back()); });
          header.has_modules = true;
        });
      } else if (key == "ops") {
        member([&] {
          index.ops.clear();
          in.array([&](std::size_t) { read_op(in, index.ops.emplace_back(), scratch); });
          header.has_ops = true;
        });
      } else if (key == "compressor_types") {
        member([&] {
          index.compressor_types.clear();
          read_compressor_types(in, index);
        });
      } else {
        in.skip_value();
      }
    });
    in.expect_end();
  } catch (const JsonReadError& e) {
    // Not JSON at all: a truncated or damaged index if it said it was one, else another file.
    if (header.format != kMagic)
      throw_not_an_index(origin);
    throw_corrupt(origin, e.offset, e.what());
  }
  if (header.format != kMagic)
    throw_not_an_index(origin);
  if (header.version != kIndexFormatVersion)
    throw IndexFormatError(origin + ": index format version " + std::to_string(header.version) +
                           ", this opscope reads version " + std::to_string(kIndexFormatVersion) +
                           "; re-run `opscope index`");
  if (shape_error)
    throw_corrupt(origin, shape_error->offset, shape_error->what());
  for (auto [present, key] : {std::pair{header.has_mode, "mode"},
                              {header.has_provenance, "provenance"},
                              {header.has_modules, "modules"},
                              {header.has_ops, "ops"}})
    if (!present)
      throw_corrupt(origin, 0, std::string("no \"") + key + "\" member");
  if (index.modules.empty())
    throw IndexFormatError(origin + ": index has no root module");
  index.rebuild_lookups();
  return index;
}

void save_index(const Index& index, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw IndexFormatError(path + ": cannot write the index file");
  std::string buffer;
  JsonWriter writer(buffer, &out);
  write_index(writer, index);
  writer.flush();
  if (!out.flush())
    throw IndexFormatError(path + ": writing the index file failed");
}

Index load_index(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file)
    throw IndexFormatError(path + ": cannot read the index file");
  // One read into a buffer of the file's size: no stringstream copies.
  std::string text;
  char chunk[1 << 16];
  if (std::fseek(file.get(), 0, SEEK_END) == 0) {
    long size = std::ftell(file.get());
    if (size > 0)
      text.reserve(static_cast<std::size_t>(size));
    std::rewind(file.get());
  }
  while (std::size_t n = std::fread(chunk, 1, sizeof chunk, file.get()))
    text.append(chunk, n);
  if (std::ferror(file.get()))
    throw IndexFormatError(path + ": cannot read the index file");
  return from_json_text(text, path);
}

bool looks_like_index_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[64] = {};
  in.read(head, sizeof head);
  std::string prefix(head, static_cast<size_t>(in.gcount()));
  if (prefix.find(kMagic) != std::string::npos)
    return true;
  // Files from the earlier (nlohmann, sorted-keys) writer put an eager index's
  // compressor_types before "format": look further, within a bound.
  if (prefix.rfind("{\"compressor_types\":", 0) != 0)
    return false;
  constexpr std::size_t kSniffLimit = 1 << 20;
  std::string text = prefix;
  text.resize(kSniffLimit);
  in.read(text.data() + prefix.size(), static_cast<std::streamsize>(kSniffLimit - prefix.size()));
  text.resize(prefix.size() + static_cast<std::size_t>(in.gcount()));
  return text.find("\"format\":\"" + std::string(kMagic) + "\"") != std::string::npos;
}

} // namespace opscope::index
