// libFuzzer harness: the reader of coreai-opt schema dumps (a file from the cache folder), and
// the check of a config against whatever schema it accepts.
#include "opscope/coreai/config/document.h"
#include "opscope/schema/check.h"
#include "opscope/schema/schema.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

// A config reaching every kind of type the dump can spell (nested maps, lists, unions, keys).
constexpr const char* kConfig = R"(quantization_config:
  global_config:
    op_state_spec:
      weight: {dtype: int4, granularity: {type: per_block, block_size: [4, -1]}, float_range: [-1, 1]}
    op_input_spec: null
    qat_schedule: {enable_observer: 3, enable_fake_quant: 1}
  module_name_configs:
    "a": {op_type_config: {linear: null}, module_state_spec: {0: {}}}
  unknown: 1
)";

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opscope;
  auto parsed = schema::parse(std::string_view(reinterpret_cast<const char*>(data), size));
  if (auto* s = std::get_if<std::shared_ptr<const schema::Schema>>(&parsed)) {
    static const config::ConfigDocument doc = config::read_config(kConfig, config::Format::Yaml);
    (void)schema::check(doc, **s);
    (void)schema::check(doc, **s, "quantization_config");
  }
  return 0;
}
