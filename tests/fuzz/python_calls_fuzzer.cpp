// libFuzzer harness: the generic reader of Python calls' keyword arguments (core/config
// python_calls.cpp) and the PEFT dialect's reading of what it returns, as a training script
// reaches them: LoraConfig(...) calls and from_pretrained("id").
#include "opscope/config/python_calls.h"
#include "opscope/dialects/peft/config.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  opscope::config::PythonCalls calls =
      opscope::config::read_python_calls(text, {"LoraConfig", "f"});
  (void)opscope::config::loaded_model(calls);
  opscope::dialects::peft::read_peft_configs("train.py", text);
  return 0;
}
