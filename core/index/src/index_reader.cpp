// Reading the index file with simdjson's DOM parser, every value checked for its shape, then
// the whole index for its structure (validate.h). Format: docs/INDEX_FORMAT.md.
#include "index_file_format.h"
#include "opscope/index/serialize.h"
#include "opscope/index/validate.h"
#include "opscope/support/regular_file.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string_view>
#include <unistd.h>
#include <utility>

namespace opscope::index {
namespace {

using file_format::kMagic;
using file_format::parse_kind;
// Far above any real index (a 96-layer GPT's is about 100 MB), and within simdjson's 4 GiB.
constexpr std::uint64_t kMaxIndexFileBytes = std::uint64_t{2} << 30;

namespace dom = simdjson::dom;

// Valid JSON, but not the value the format puts there.
struct ShapeError {
  std::string what;
};

[[noreturn]] void shape_error(std::string what) {
  throw ShapeError{std::move(what)};
}

// `what` names the value for the message, e.g. "a module's \"parent\"".
std::string_view string_of(dom::element e, const char* what) {
  std::string_view text;
  if (e.get_string().get(text))
    shape_error(std::string(what) + " is not a string");
  return text;
}

long long integer_of(dom::element e, const char* what) {
  std::int64_t value = 0;
  if (e.get_int64().get(value))
    shape_error(std::string(what) + " is not an integer");
  return value;
}

int int32_of(dom::element e, const char* what) {
  long long value = integer_of(e, what);
  if (value < INT32_MIN || value > INT32_MAX)
    shape_error(std::string(what) + " is out of range");
  return static_cast<int>(value);
}

dom::array array_of(dom::element e, const char* what) {
  dom::array array;
  if (e.get_array().get(array))
    shape_error(std::string(what) + " is not an array");
  return array;
}

dom::object object_of(dom::element e, const char* what) {
  dom::object object;
  if (e.get_object().get(object))
    shape_error(std::string(what) + " is not an object");
  return object;
}

// Required members of a record, checked once the record is read.
class RequiredKeys {
public:
  RequiredKeys(std::initializer_list<const char*> names) {
    for (const char* name : names)
      names_[count_++] = name;
  }
  void saw(std::size_t i) { seen_ |= 1u << i; }
  void check(const char* record) const {
    for (std::size_t i = 0; i < count_; ++i)
      if (!(seen_ & (1u << i)))
        shape_error(std::string(record) + " without \"" + names_[i] + "\"");
  }

private:
  std::array<const char*, 8> names_{};
  std::size_t count_ = 0;
  unsigned seen_ = 0;
};

// Reads a fixed-length array ([a, b, ...]) calling read_element(i, element) for the first
// `count` elements; extra elements are ignored, as earlier readers did.
template <class ReadElement>
void read_tuple(dom::element e, std::size_t count, const char* what, ReadElement&& read_element) {
  std::size_t seen = 0;
  for (dom::element element : array_of(e, what)) {
    if (seen < count)
      read_element(seen, element);
    ++seen;
  }
  if (seen < count)
    shape_error(std::string(what) + " with too few elements");
}

// Room for an array's elements before reading them: an index holds ~10 small vectors per op,
// and growing each one element at a time was a tenth of loading GPT-384's index. Bounded, so a
// hostile array of millions of non-records reserves nothing big before it is refused.
template <class Vector> dom::array reserved(dom::element e, const char* what, Vector& out) {
  constexpr std::size_t kMaxReserved = 1024;
  dom::array array = array_of(e, what);
  out.reserve(out.size() + std::min<std::size_t>(array.size(), kMaxReserved));
  return array;
}

void read_int_array(dom::element e, const char* what, std::vector<int>& out) {
  for (dom::element element : reserved(e, what, out))
    out.push_back(int32_of(element, what));
}

void read_string_array(dom::element e, const char* what, std::vector<std::string>& out) {
  for (dom::element element : reserved(e, what, out))
    out.emplace_back(string_of(element, what));
}

BoundaryEdge read_edge(dom::element e) {
  BoundaryEdge edge;
  read_tuple(e, 2, "a boundary edge", [&](std::size_t i, dom::element element) {
    if (i == 0)
      edge.op = string_of(element, "a boundary edge's op");
    else
      edge.slot = int32_of(element, "a boundary edge's slot");
  });
  return edge;
}

InputEdge read_input_edge(dom::element e) {
  InputEdge edge;
  RequiredKeys required{"producer"};
  for (auto [key, value] : object_of(e, "an op input")) {
    if (key == "producer") {
      edge.producer = string_of(value, "an op input's \"producer\"");
      required.saw(0);
    } else if (key == "slot") {
      edge.slot = int32_of(value, "an op input's \"slot\"");
    } else if (key == "state") {
      bool is_state = false;
      if (value.get_bool().get(is_state))
        shape_error("an op input's \"state\" is not true or false");
      edge.is_state = is_state;
    }
  }
  required.check("an op input");
  return edge;
}

void read_op(dom::element e, Op& op) {
  RequiredKeys required{"name",   "type",   "kind",    "stack",
                        "source", "inputs", "outputs", "compressors"};
  for (auto [key, value] : object_of(e, "an op")) {
    if (key == "name") {
      op.name = string_of(value, "an op's \"name\"");
      required.saw(0);
    } else if (key == "type") {
      op.type = string_of(value, "an op's \"type\"");
      required.saw(1);
    } else if (key == "kind") {
      op.kind = parse_kind(string_of(value, "an op's \"kind\""));
      required.saw(2);
    } else if (key == "stack") {
      for (dom::element entry : reserved(value, "an op's \"stack\"", op.module_stack)) {
        ModuleContext& ctx = op.module_stack.emplace_back();
        read_tuple(entry, 2, "a module stack entry", [&](std::size_t i, dom::element element) {
          (i == 0 ? ctx.name : ctx.type) = string_of(element, "a module stack entry");
        });
      }
      required.saw(3);
    } else if (key == "source") {
      for (dom::element frame : reserved(value, "an op's \"source\"", op.source)) {
        SourceFrame& f = op.source.emplace_back();
        read_tuple(frame, 4, "a source frame", [&](std::size_t i, dom::element element) {
          if (i == 1)
            f.line = int32_of(element, "a source frame's line");
          else
            (i == 0 ? f.file : i == 2 ? f.function : f.code) = string_of(element, "a source frame");
        });
      }
      required.saw(4);
    } else if (key == "inputs") {
      for (dom::element input : reserved(value, "an op's \"inputs\"", op.inputs))
        op.inputs.push_back(read_input_edge(input));
      required.saw(5);
    } else if (key == "outputs") {
      for (dom::element entry : reserved(value, "an op's \"outputs\"", op.outputs)) {
        auto& output = op.outputs.emplace_back();
        read_tuple(entry, 2, "an op output", [&](std::size_t i, dom::element element) {
          if (i == 0)
            output.first = int32_of(element, "an op output's slot");
          else
            read_string_array(element, "an op output's consumers", output.second);
        });
      }
      required.saw(6);
    } else if (key == "compressors") {
      long long bits = integer_of(value, "an op's \"compressors\"");
      const long long all = coreai::all_compressor_bits();
      if (bits < 0 || (bits & ~all) != 0)
        shape_error("an op's \"compressors\" is not a set of compressor bits (0 to " +
                    std::to_string(all) + ")");
      op.compressors = static_cast<std::uint8_t>(bits);
      required.saw(7);
    }
  }
  required.check("an op");
}

void read_module(dom::element e, Module& m) {
  RequiredKeys required{"name", "type", "parent", "children", "ops", "inputs", "outputs"};
  for (auto [key, value] : object_of(e, "a module")) {
    if (key == "name") {
      m.name = string_of(value, "a module's \"name\"");
      required.saw(0);
    } else if (key == "type") {
      m.type = string_of(value, "a module's \"type\"");
      required.saw(1);
    } else if (key == "parent") {
      m.parent = int32_of(value, "a module's \"parent\"");
      required.saw(2);
    } else if (key == "children") {
      read_int_array(value, "a module's \"children\"", m.children);
      required.saw(3);
    } else if (key == "ops") {
      read_int_array(value, "a module's \"ops\"", m.ops);
      required.saw(4);
    } else if (key == "inputs") {
      for (dom::element entry : array_of(value, "a module's \"inputs\"")) {
        auto& input = m.inputs.emplace_back();
        read_tuple(entry, 2, "a module input", [&](std::size_t i, dom::element element) {
          if (i == 0)
            input.first = int32_of(element, "a module input's slot");
          else
            for (dom::element edge : array_of(element, "a module input's edges"))
              input.second.push_back(read_edge(edge));
        });
      }
      required.saw(5);
    } else if (key == "outputs") {
      for (dom::element entry : array_of(value, "a module's \"outputs\"")) {
        auto& output = m.outputs.emplace_back();
        read_tuple(entry, 2, "a module output", [&](std::size_t i, dom::element element) {
          if (i == 0)
            output.first = int32_of(element, "a module output's slot");
          else
            output.second = read_edge(element);
        });
      }
      required.saw(6);
    }
  }
  required.check("a module");
}

// Beyond any real tensor (torch allows 64 dimensions), and small enough that a parameter's
// element count and bit size stay far inside 64 bits.
constexpr std::size_t kMaxParameterRank = 64;
constexpr long long kMaxParameterElements = 1LL << 48;

void read_parameter(dom::element e, Parameter& p) {
  RequiredKeys required{"name", "shape", "dtype"};
  for (auto [key, value] : object_of(e, "a parameter")) {
    if (key == "name") {
      p.name = string_of(value, "a parameter's \"name\"");
      required.saw(0);
    } else if (key == "aliases") {
      read_string_array(value, "a parameter's \"aliases\"", p.aliases);
    } else if (key == "shape") {
      long long elements = 1;
      for (dom::element dim : array_of(value, "a parameter's \"shape\"")) {
        long long size = integer_of(dim, "a parameter's dimension");
        if (size < 0 || size > kMaxParameterElements)
          shape_error("a parameter's dimension is out of range (0 to " +
                      std::to_string(kMaxParameterElements) + ")");
        if (p.shape.size() == kMaxParameterRank)
          shape_error("a parameter has more than " + std::to_string(kMaxParameterRank) +
                      " dimensions");
        if (size != 0 && elements > kMaxParameterElements / size)
          shape_error("a parameter has more than " + std::to_string(kMaxParameterElements) +
                      " elements");
        elements *= size;
        p.shape.push_back(size);
      }
      required.saw(1);
    } else if (key == "dtype") {
      p.dtype = string_of(value, "a parameter's \"dtype\"");
      required.saw(2);
    } else if (key == "buffer") {
      bool is_buffer = false;
      if (value.get_bool().get(is_buffer))
        shape_error("a parameter's \"buffer\" is not true or false");
      p.buffer = is_buffer;
    }
  }
  required.check("a parameter");
}

void read_module_object(dom::element e, ModuleObject& m) {
  RequiredKeys required{"name", "type", "children"};
  for (auto [key, value] : object_of(e, "a module object")) {
    if (key == "name") {
      m.name = string_of(value, "a module object's \"name\"");
      required.saw(0);
    } else if (key == "type") {
      m.type = string_of(value, "a module object's \"type\"");
      required.saw(1);
    } else if (key == "aliases") {
      read_string_array(value, "a module object's \"aliases\"", m.aliases);
    } else if (key == "children") {
      read_int_array(value, "a module object's \"children\"", m.children);
      required.saw(2);
    } else if (key == "mro") {
      read_string_array(value, "a module object's \"mro\"", m.mro);
    } else if (key == "model_type") {
      m.model_type = string_of(value, "a module object's \"model_type\"");
    } else if (key == "output_embeddings") {
      bool flag = false;
      if (value.get_bool().get(flag))
        shape_error("a module object's \"output_embeddings\" is not a boolean");
      m.output_embeddings = flag;
    } else if (key == "experts_implementation") {
      ModuleObject::ExpertsImplementation experts;
      bool saw_transposed = false, saw_gate = false;
      auto read_flag = [](dom::element flag, bool& into, bool& saw) {
        saw = true;
        if (flag.get_bool().get(into))
          shape_error("a module object's \"experts_implementation\" holds a non-boolean");
      };
      for (auto [field, flag] : object_of(value, "a module object's \"experts_implementation\"")) {
        if (field == "is_transposed")
          read_flag(flag, experts.transposed, saw_transposed);
        else if (field == "has_gate")
          read_flag(flag, experts.gated, saw_gate);
      }
      if (!saw_transposed || !saw_gate)
        shape_error("a module object's \"experts_implementation\" lacks is_transposed or has_gate");
      m.experts_implementation = experts;
    }
  }
  required.check("a module object");
}

void read_provenance(dom::element e, Provenance& prov) {
  for (auto [key, value] : object_of(e, "\"provenance\"")) {
    if (key == "archive")
      prov.archive = string_of(value, "\"archive\"");
    else if (key == "archive_hash")
      prov.archive_hash = string_of(value, "\"archive_hash\"");
    else if (key == "torch_version")
      prov.torch_version = string_of(value, "\"torch_version\"");
    else if (key == "source_files")
      read_string_array(value, "\"source_files\"", prov.source_files);
    else if (key == "untraced")
      prov.untraced = string_of(value, "\"untraced\"");
  }
}

void read_compressor_types(dom::element e, Index& index) {
  for (auto [op, types] : object_of(e, "\"compressor_types\""))
    for (auto [name, type] : object_of(types, "an op's compressor types"))
      if (auto compressor = parse_compressor(std::string(name)))
        index.compressor_types[std::string(op)].emplace_back(
            *compressor, std::string(string_of(type, "a compressor type")));
}

// The body of a file that says it is a current-version index.
void read_body(dom::object top, Index& index) {
  bool has_mode = false, has_provenance = false, has_modules = false, has_ops = false;
  for (auto [key, value] : top) {
    if (key == "mode") {
      index.mode = parse_mode(std::string(string_of(value, "\"mode\""))).value_or(Mode::Graph);
      has_mode = true;
    } else if (key == "provenance") {
      read_provenance(value, index.provenance);
      has_provenance = true;
    } else if (key == "modules") {
      dom::array modules = array_of(value, "\"modules\"");
      index.modules.clear();
      index.modules.reserve(modules.size());
      for (dom::element module : modules)
        read_module(module, index.modules.emplace_back());
      has_modules = true;
    } else if (key == "ops") {
      dom::array ops = array_of(value, "\"ops\"");
      index.ops.clear();
      index.ops.reserve(ops.size());
      for (dom::element op : ops)
        read_op(op, index.ops.emplace_back());
      has_ops = true;
    } else if (key == "parameters") {
      dom::array parameters = array_of(value, "\"parameters\"");
      index.parameters.clear();
      index.parameters.reserve(parameters.size());
      for (dom::element parameter : parameters)
        read_parameter(parameter, index.parameters.emplace_back());
    } else if (key == "compressor_types") {
      index.compressor_types.clear();
      read_compressor_types(value, index);
    } else if (key == "module_objects") {
      dom::array objects = array_of(value, "\"module_objects\"");
      index.module_objects.clear();
      index.module_objects.reserve(objects.size());
      for (dom::element object : objects)
        read_module_object(object, index.module_objects.emplace_back());
    }
  }
  for (auto [present, key] : {std::pair{has_mode, "mode"},
                              {has_provenance, "provenance"},
                              {has_modules, "modules"},
                              {has_ops, "ops"}})
    if (!present)
      shape_error(std::string("no \"") + key + "\" member");
}

// For text that is not JSON: whether it says it is an index (a "format": "opscope-index"
// member), so a damaged index is called corrupt and any other file foreign.
bool says_it_is_an_index(std::string_view text) {
  constexpr std::string_view kFormatKey = "\"format\"";
  const std::string magic = '"' + std::string(kMagic) + '"';
  auto skip_space = [&](std::size_t at) {
    while (at < text.size() &&
           (text[at] == ' ' || text[at] == '\n' || text[at] == '\r' || text[at] == '\t'))
      ++at;
    return at;
  };
  for (std::size_t at = text.find(kFormatKey); at != std::string_view::npos;
       at = text.find(kFormatKey, at + 1)) {
    std::size_t colon = skip_space(at + kFormatKey.size());
    if (colon < text.size() && text[colon] == ':' &&
        text.substr(skip_space(colon + 1), magic.size()) == magic)
      return true;
  }
  return false;
}

[[noreturn]] void throw_not_an_index(const std::string& origin) {
  throw IndexFormatError(origin + ": not an opscope index file (make one with `opscope index "
                                  "MODEL.pt2 -o FILE`)");
}

std::string remake_hint(const std::string& origin) {
  return "re-create it with `opscope index MODEL.pt2 -o " + origin + "`";
}

[[noreturn]] void throw_corrupt(const std::string& origin, const std::string& what) {
  throw IndexFormatError(origin + ": corrupt index file (" + what + "); " + remake_hint(origin));
}

// `text` must be followed by simdjson::SIMDJSON_PADDING readable bytes unless `copy` is set.
Index read_index(std::string_view text, bool copy, const std::string& origin) {
  dom::parser parser;
  dom::element root;
  if (auto error = parser.parse(text.data(), text.size(), copy).get(root)) {
    if (!says_it_is_an_index(text))
      throw_not_an_index(origin);
    throw_corrupt(origin, std::string("not valid JSON: ") + simdjson::error_message(error));
  }
  dom::object top;
  std::string_view format;
  if (root.get_object().get(top) || top["format"].get_string().get(format) || format != kMagic)
    throw_not_an_index(origin);
  // Checked before the body, whose layout another version may have changed.
  std::int64_t version = 0;
  if (top["version"].get_int64().get(version))
    version = 0;
  if (version != kIndexFormatVersion)
    throw IndexFormatError(origin + ": index format version " + std::to_string(version) +
                           ", this opscope reads version " + std::to_string(kIndexFormatVersion) +
                           "; " + remake_hint(origin));
  Index index;
  try {
    read_body(top, index);
  } catch (const ShapeError& e) {
    throw_corrupt(origin, e.what);
  }
  index.rebuild_lookups();
  if (auto problem = find_structure_problem(index))
    throw_corrupt(origin, *problem);
  return index;
}

} // namespace

Index from_json_text(const std::string& text, const std::string& origin) {
  // Copied into a padded buffer: the string's spare capacity may be uninitialised.
  return read_index(text, /*copy=*/true, origin);
}

Index load_index(const std::string& path) {
  std::unique_ptr<support::RegularFile> file;
  try {
    file = std::make_unique<support::RegularFile>(path);
  } catch (const support::FileReadError& e) {
    if (e.kind() == support::FileReadError::Kind::NotRegular)
      throw IndexFormatError(e.what());
    std::string why = std::string(e.what()).substr(path.size() + 2);
    throw IndexFormatError(path + ": cannot read the index file (" + why + ")");
  }
  if (file->size() > kMaxIndexFileBytes)
    throw IndexFormatError(path + ": too large for an index file: " + std::to_string(file->size()) +
                           " bytes (limit " + std::to_string(kMaxIndexFileBytes) + ")");
  // Read straight into a buffer with simdjson's padding: no copy before the parse.
  simdjson::padded_string text(static_cast<std::size_t>(file->size()));
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t got = ::read(file->fd(), text.data() + done, text.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    done += static_cast<std::size_t>(got);
  }
  if (done != text.size())
    throw IndexFormatError(path + ": cannot read the index file (it changed while being read)");
  return read_index(text, /*copy=*/false, path);
}

bool looks_like_index_file(const std::string& path) {
  if (support::regular_file_problem(path))
    return false;
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
