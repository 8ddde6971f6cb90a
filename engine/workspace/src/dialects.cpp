#include "opscope/workspace/dialects.h"

#include "opscope/dialects/llmcompressor/dialect.h"
#include "opscope/dialects/peft/dialect.h"

#include <array>

namespace opscope::workspace {

std::span<const dialects::Dialect* const> registered_dialects() {
  // One line per dialect; the first that recognises a file reads it.
  static const std::array kDialects{
      &dialects::peft::dialect(),
      &dialects::llmcompressor::dialect(),
  };
  return kDialects;
}

const dialects::Dialect* dialect_for(const std::string& path, const std::string& text) {
  for (const dialects::Dialect* dialect : registered_dialects())
    if (dialect->recognises(path, text))
      return dialect;
  return nullptr;
}

} // namespace opscope::workspace
