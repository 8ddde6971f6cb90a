// opscope-weights' safetensors reader on arbitrary bytes: an input starting with '{' is a
// model.safetensors.index.json, any other is a whole .safetensors file (8-byte length, header,
// data). Every failure must be a SafetensorsError, never a crash, a hang or unbounded memory;
// every tensor accepted must lie inside the input with exactly its dtype's bytes.
#include "safetensors_reader.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace opscope::weights;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    if (!input.empty() && input[0] == '{') {
      (void)parse_safetensors_index(input, "fuzz/model.safetensors.index.json");
      return 0;
    }
    const std::uint64_t length =
        safetensors_header_length(input.substr(0, 8), input.size(), "fuzz.safetensors");
    const SafetensorsHeader header =
        parse_safetensors_header(input.substr(8, length), input.size(), "fuzz.safetensors");
    for (const auto& [name, t] : header.tensors) {
      std::uint64_t bytes = *safetensors_element_size(t.dtype);
      for (std::int64_t d : t.shape)
        bytes *= static_cast<std::uint64_t>(d);
      if (t.begin < header.data_start || t.end > input.size() || t.end - t.begin != bytes)
        std::abort(); // accepted a tensor the file cannot hold
    }
  } catch (const SafetensorsError&) {
  }
  return 0;
}
