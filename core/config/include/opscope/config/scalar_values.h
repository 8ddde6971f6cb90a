// A tree node's value as a library's own config reader takes it (the PEFT and llm-compressor
// dialects): aliases followed, YAML / Python nulls, and scalars typed by what the Python literal
// was (ScalarType) or, in YAML / JSON, by how the text reads. One set of readers for every
// dialect, so two libraries never disagree on what `8` or `None` is.
#pragma once

#include "opscope/config/tree.h"

#include <optional>

namespace opscope::config {

// The node an alias chain ends at (at most 64 hops); null for a cycle or a dangling alias.
const Node* follow_aliases(const Node* n);

// Nothing written, `null`, `~`, `None` or an empty plain scalar.
bool is_null_value(const Node* n);

// A scalar that is not a Python number, boolean or unevaluated expression.
bool is_string_value(const Node& n);

// Decimal integers (`+8` too); not a Python string or boolean.
std::optional<long long> integer_value(const Node& n);

// An integer or a finite float; not a Python string or boolean.
std::optional<double> number_value(const Node& n);

// true / True / TRUE and false / False / FALSE; not an expression.
std::optional<bool> boolean_value(const Node& n);

} // namespace opscope::config
