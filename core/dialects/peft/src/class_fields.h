// The keyword fields of PEFT's tuner config classes, as the PEFT that opscope was built against
// declares them (data/peft-fields.json, written by scripts/peft_fields.py from the installed
// PEFT's dataclasses; ctest dialects.peft_fields fails when they drift apart).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opscope::dialects::peft::detail {

struct ClassField {
  std::string name;
  std::string type; // the annotation as written: "Optional[Union[list[str], str]]"
  std::string help; // PEFT's own help text (the dataclass field's metadata)
};

// The fields `class_name` takes as keywords, in declaration order; null for a class the table
// does not hold.
const std::vector<ClassField>* fields_of_class(std::string_view class_name);

// The PEFT version the table was written from ("0.21.2").
const std::string& fields_peft_version();

} // namespace opscope::dialects::peft::detail
