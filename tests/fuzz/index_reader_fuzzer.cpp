// The index file reader on arbitrary bytes: load (with its structural validation), then what
// `opscope query` and `opscope summary` do with the result. Any index the loader accepts must
// be safe to query and print; a crash here is a crash of the CLI or the server.
#include "opscope/format/summary.h"
#include "opscope/index/module_inputs.h"
#include "opscope/index/query.h"
#include "opscope/index/serialize.h"
#include "opscope/index/validate.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

using namespace opscope::index;

// The text summary indents 4 columns per level and folds labels to what is left of the
// width: its size grows with depth times label length. Printed here only for indexes whose
// output stays small, so each run is quick; the JSON summary has no such growth.
bool small_enough_to_print(const Index& index) {
  return index.modules.size() <= 64 && index.ops.size() <= 256;
}

void exercise(const Index& index) {
  if (auto problem = find_structure_problem(index))
    std::abort(); // the loader accepted what the validator rejects
  QueryEngine engine(index);
  for (Compressor compressor : {Compressor::None, Compressor::Quantizer}) {
    (void)engine.all_ops(compressor);
    for (Table kind : {Table::OpType, Table::OpName, Table::ModuleType, Table::ModuleName})
      for (const char* text : {".*", "linear", "l.*r"})
        (void)engine.match(Query(kind, text), compressor);
  }
  for (std::size_t m = 0; m < index.modules.size() && m < 8; ++m)
    (void)module_inputs(index, index.modules[m].name);
  opscope::format::SummaryOptions options;
  (void)opscope::format::summary_json(index, options).dump();
  if (small_enough_to_print(index))
    (void)opscope::format::format_summary(index, options);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    Index index = from_json_text(text, "fuzz.json");
    exercise(index);
  } catch (const IndexFormatError&) {
  }
  return 0;
}
