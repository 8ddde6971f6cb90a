#include "opscope/workspace/dialects.h"

#include "opscope/dialects/coreai/dialect.h"
#include "opscope/dialects/llmcompressor/dialect.h"
#include "opscope/dialects/peft/dialect.h"

#include <array>

namespace opscope::workspace {

std::span<const dialects::Dialect* const> registered_dialects() {
  // One line per dialect; the first that recognises a file reads it. coreai-opt, last, reads
  // the rest (a compressed-tensors checkpoint's root key is also coreai-opt's).
  static const std::array kDialects{
      &dialects::peft::dialect(),
      &dialects::llmcompressor::dialect(),
      &dialects::coreai::dialect(),
  };
  return kDialects;
}

const dialects::Dialect& dialect_for(const std::string& path, const std::string& text) {
  for (const dialects::Dialect* dialect : registered_dialects())
    if (dialect->recognises(path, text))
      return *dialect;
  return *registered_dialects().back(); // recognises every file
}

} // namespace opscope::workspace
