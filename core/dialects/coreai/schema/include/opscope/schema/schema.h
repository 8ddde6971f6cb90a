// coreai-opt's config models as data: what `python -m opscope_export schema` dumps from the
// project's coreai-opt (fields, types, defaults, constraints, documentation), read with
// bounds. One Schema per coreai-opt version; builtin() is the committed dump of 0.4.0,
// used when no dump for the installed version can be made (no interpreter, untrusted).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace opscope::schema {

// A literal / default value as JSON spelled it.
struct Value {
  enum class Kind { Null, Bool, Int, Float, Str };
  Kind kind = Kind::Null;
  bool b = false;
  long long i = 0;
  double f = 0;
  std::string s;
  std::string text() const; // as YAML would spell it
};

struct Type {
  enum class Kind {
    Any,
    Null,
    Bool,
    Int,
    Float,
    Str,
    Enum,
    Literal,
    Model,
    Dict,
    List,
    Tuple,
    Union,
    Registry
  };
  Kind kind = Kind::Any;
  std::string name;                   // Enum: its Python name; Model: the model; Registry: the base
  std::vector<std::string> values;    // Enum: the canonical values
  std::vector<std::string> aliases;   // Enum: other spellings coreai-opt accepts
  std::vector<std::string> stateless; // Enum of registered classes: the dynamic calculators
  std::vector<Value> literals;        // Literal
  std::optional<double> ge, gt, le, lt; // Int / Float
  bool none_ok = false;       // a before-validator turns null into an empty / disabled dict
  bool digit_keys = false;    // Dict: "0" keys become 0 (coreai-opt's before-validator)
  std::vector<Type> children; // Union/Tuple: options/items; Dict: key, value; List: item
  std::vector<std::pair<std::string, std::string>> registry; // Registry: `type` -> model

  bool accepts_enum(std::string_view s) const;
};

struct Field {
  std::string name;
  Type type;
  bool required = false;
  std::optional<std::string> default_text; // compact JSON of the default, when it has one
  std::string doc;
};

struct Model {
  std::string name;
  std::string doc;
  bool forbid = false;        // extra="forbid": an unknown key is an error
  bool strip_unknown = false; // a before-validator drops unknown keys: they are ignored
  std::vector<Field> fields;
  std::vector<std::string> bases;
  std::vector<std::string> validators; // coreai-opt's model validators, by name
  const Field* field(std::string_view name) const;
  bool is_a(std::string_view base) const; // this model or one of its bases is `base`
};

struct Root {
  std::string config_key; // quantization_config
  std::string model;      // QuantizerConfig
  std::string spec_key;   // quantization_spec (a sibling for YAML anchors only)
};

struct DtypeInfo {
  bool floating = false;
  std::string canonical;   // float8_e4m3 -> float8_e4m3fn
  bool e8m0_scale = false; // an e8m0 scale_dtype may go with it
  bool lut = false;        // a palettization LUT may be quantized to it
};

struct Schema {
  std::string coreai_opt_version;
  std::vector<Root> roots;
  std::map<std::string, Model, std::less<>> models;
  std::map<std::string, DtypeInfo, std::less<>> dtypes;

  const Model* model(std::string_view name) const;
  const Root* root(std::string_view config_key) const;
};

// A dump larger than this is not a coreai-opt schema (0.4.0's is ~65 KB).
inline constexpr std::size_t kMaxDumpBytes = 8 * 1024 * 1024;
// Deeper than any type coreai-opt spells (about 6 levels).
inline constexpr int kMaxDumpNesting = 64;

// Reads a dump; on failure, why (one line, naming what is wrong).
std::variant<std::shared_ptr<const Schema>, std::string> parse(std::string_view text);

// The committed dump of coreai-opt 0.4.0, compiled in.
std::shared_ptr<const Schema> builtin();

// The schema the coreai-opt dialect chose for a project (Dialect::schema_for, handed back as
// Context::schema), else the built-in copy.
const Schema& chosen_or_builtin(const std::shared_ptr<const void>& chosen);

} // namespace opscope::schema
