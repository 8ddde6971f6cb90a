// Reading one modifier's fields from a config tree node (a recipe's YAML map, a Python call's
// keyword arguments, a checkpoint's quantization_config): the same keys whatever the source.
#pragma once

#include "opscope/config/tree.h"
#include "opscope/dialects/llmcompressor/config.h"

#include <string_view>

namespace opscope::dialects::llmcompressor::detail {

const config::Node* find(const config::Node& map, std::string_view key);

// A modifier's fields (targets, ignore, scheme, config_groups, mappings, ...) from `map`.
void read_modifier(const config::Node& map, Modifier& out);
// A checkpoint's quantization_config (config_groups, ignore, format).
void read_checkpoint(const config::Node& map, Modifier& out);

} // namespace opscope::dialects::llmcompressor::detail
