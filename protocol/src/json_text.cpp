#include "opscope/protocol/json_text.h"

namespace opscope::protocol {

std::string& JsonObjectWriter::key(std::string_view name) {
  if (!first_)
    out_ += ',';
  first_ = false;
  out_ += '"'; // keys are the writer's own literals: nothing to escape
  out_ += name;
  out_ += "\":";
  return out_;
}

} // namespace opscope::protocol
