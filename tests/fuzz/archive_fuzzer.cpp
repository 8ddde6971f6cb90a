// The worker's archive reader on arbitrary bytes, in memory: the zip container (libzip via
// zip_source_buffer), model.json, and the graph-mode and eager-mode index builders (an
// untraced model's record and module table included). Every
// failure must be an ArchiveError (or another one-line error the worker prints), never a
// crash, a hang or unbounded memory; a built index must pass the loader's validation.
#include "opscope/index/serialize.h"
#include "opscope/index/validate.h"
#include "opscope/inspect/archive.h"
#include "opscope/inspect/eager_mode.h"
#include "opscope/inspect/graph_mode.h"
#include "opscope/inspect/weight_table.h"

#include <zip.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

using namespace opscope;

// Small enough that no input makes the fuzzer itself run out of memory (-rss_limit_mb).
inspect::RecordLimits fuzz_limits() {
  inspect::RecordLimits limits;
  limits.max_bytes = 16 << 20;
  return limits;
}

void check_built(const index::Index& built) {
  // What the worker writes, the loader reads back: the builder's output must be valid.
  index::Index copy = index::from_json_text(index::to_json_text(built), "built.json");
  (void)copy;
}

// Mutated zips mostly fail their CRC before model.json is parsed. So an input that is not a
// zip is taken as the record itself and packed into a valid archive: `E` + text is the eager
// record (next to a minimal program), `U` + text the record of a model torch.export could not
// trace (next to a small module table, no program; a digit after the `U` picks the form of the
// table's experts record, else it is the first), any other text is models/model.json.
std::string pack_records(std::string_view input) {
  static constexpr std::string_view kMinimalProgram =
      R"({"schema_version":{"major":8,"minor":0},"graph_module":{"graph":{}}})";
  static constexpr std::string_view kModuleTable =
      R"({"format":"opscope-modules","version":1,"modules":[{"name":"","type":"M",)"
      R"("children":[1,2]},{"name":"fc","type":"torch.nn.modules.linear.Linear"},)"
      R"({"name":"experts","type":"E","experts_implementation":)";
  // The record module_names.py writes for a module with a 3-D down_proj, then malformed ones:
  // a string or a number for a flag, a flag missing, the record not an object.
  static constexpr std::string_view kExpertsForms[] = {
      R"({"is_transposed":false,"has_gate":true})",
      R"({"is_transposed":true,"has_gate":false})",
      R"({"is_transposed":"true","has_gate":true})",
      R"({"is_transposed":false,"has_gate":1})",
      R"({"is_transposed":true})",
      R"({"has_gate":false})",
      R"([true,true])",
      R"("true")",
      R"(null)"};
  std::string_view model_json = input;
  std::string_view eager_record;
  std::string_view untraced_record;
  std::string module_table; // read by zip_close
  if (!input.empty() && input[0] == 'E') {
    model_json = kMinimalProgram;
    eager_record = input.substr(1);
  } else if (!input.empty() && input[0] == 'U') {
    model_json = {};
    untraced_record = input.substr(1);
    std::size_t form = 0;
    if (untraced_record.size() > 1 && untraced_record[0] >= '0' && untraced_record[0] <= '9') {
      form = static_cast<std::size_t>(untraced_record[0] - '0') % std::size(kExpertsForms);
      untraced_record.remove_prefix(1);
    }
    module_table.append(kModuleTable).append(kExpertsForms[form]).append("}]}");
  }
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* target = zip_source_buffer_create(nullptr, 0, 0, &error);
  zip_source_keep(target); // read back after zip_close
  zip_t* zip = zip_open_from_source(target, ZIP_TRUNCATE, &error);
  auto add = [&](const char* name, std::string_view text) {
    zip_source_t* record = zip_source_buffer(zip, text.data(), text.size(), 0);
    if (zip_file_add(zip, name, record, ZIP_FL_OVERWRITE) < 0)
      zip_source_free(record);
    else
      zip_set_file_compression(zip, zip_get_num_entries(zip, 0) - 1, ZIP_CM_STORE, 0);
  };
  if (!model_json.empty())
    add("fuzz/models/model.json", model_json);
  if (!eager_record.empty())
    add("fuzz/extra/opscope_eager.json", eager_record);
  if (!untraced_record.empty()) {
    add("fuzz/extra/opscope_untraced.json", untraced_record);
    add("fuzz/extra/opscope_modules.json", module_table);
  }
  zip_close(zip);
  std::string packed;
  zip_stat_t stat;
  if (zip_source_stat(target, &stat) == 0 && zip_source_open(target) == 0) {
    packed.resize(static_cast<std::size_t>(stat.size));
    zip_int64_t got = zip_source_read(target, packed.data(), packed.size());
    packed.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    zip_source_close(target);
  }
  zip_source_free(target);
  zip_error_fini(&error);
  return packed;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string packed;
  if (input.substr(0, 2) != "PK")
    packed = pack_records(input);
  std::string_view bytes = packed.empty() ? input : std::string_view(packed);
  try {
    inspect::Archive archive = inspect::read_archive_bytes(bytes, "fuzz.pt2", fuzz_limits());
    try {
      check_built(inspect::build_graph_index(archive));
    } catch (const inspect::ArchiveError&) {
    }
    try {
      check_built(inspect::build_eager_index(archive));
    } catch (const inspect::ArchiveError&) {
    }
    try { // the weights table `opscope-inspect --stores-weights` and opscope-weights read
      if (archive.records) {
        const auto table = inspect::read_weight_table(*archive.records, "fuzz.pt2");
        (void)inspect::exported_weightless(*archive.records, table);
      }
    } catch (const inspect::ArchiveError&) {
    } catch (const inspect::ZipRecordsError&) {
    }
  } catch (const inspect::ArchiveError&) {
  }
  return 0;
}
