// The serialized ExportedProgram (models/model.json) of an Archive, parsed with simdjson.
// Private to core/inspect, so that simdjson stays out of the public headers.
#pragma once

#include <simdjson.h>

namespace opscope::inspect {

struct ProgramDocument {
  simdjson::dom::parser parser; // owns the memory every element and string points into
  simdjson::dom::element program;
  simdjson::dom::element graph_module() const { return program["graph_module"].value(); }
};

} // namespace opscope::inspect
