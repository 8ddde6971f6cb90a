// What the index file's writer (index_writer.cpp) and reader (index_reader.cpp) must agree on
// beyond serialize.h: the magic and the op kind names. Format: docs/INDEX_FORMAT.md.
#pragma once

#include "opscope/index/index.h"

#include <string_view>

namespace opscope::index::file_format {

inline constexpr const char* kMagic = "opscope-index";

inline const char* kind_name(OpKind kind) {
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

inline OpKind parse_kind(std::string_view text) {
  if (text == "input")
    return OpKind::Input;
  if (text == "output")
    return OpKind::Output;
  if (text == "state")
    return OpKind::State;
  return OpKind::Call;
}

} // namespace opscope::index::file_format
