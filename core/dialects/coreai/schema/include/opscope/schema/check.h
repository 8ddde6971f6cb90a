// Holds a parsed config to coreai-opt's models (a Schema): every key and value its
// from_yaml / from_dict would refuse, at the key or value written, with coreai-opt's own
// wording where it has one. YAML anchors and merge keys are followed as PyYAML follows them,
// scalars typed as PyYAML types them and coerced as pydantic's lax mode coerces them.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/schema/schema.h"

#include <string>
#include <vector>

namespace opscope::schema {

struct Problem {
  enum class Kind {
    UnknownKey,  // extra="forbid" refuses it
    IgnoredKey,  // coreai-opt drops it silently (a warning: the user meant something)
    WrongType,   // a mapping where a value goes, a string where a number goes, ...
    NotAllowed,  // a value outside an enum, a literal or a registry
    OutOfRange,  // ge / gt / le / lt
    Missing,     // a required field left out
    Combination, // one of coreai-opt's model validators refuses the combination
    Root,        // the document's top level
  };
  Kind kind = Kind::WrongType;
  config::Range range;
  std::string message;
  std::vector<std::string> suggestions; // UnknownKey / NotAllowed: the nearest valid names
  bool is_error() const { return kind != Kind::IgnoredKey; }
};

const char* code(Problem::Kind kind); // stable diagnostic codes: "schema-unknown-key", ...

// Problems already reported by core/config's reader (its unknown_fields) are not repeated.
// `expected_root`: the config key the project's compressor implies (`quantization_config`),
// when the document itself names none; empty: a document without a root key is not checked.
std::vector<Problem> check(const config::ConfigDocument& document, const Schema& schema,
                           std::string_view expected_root = {});

} // namespace opscope::schema
