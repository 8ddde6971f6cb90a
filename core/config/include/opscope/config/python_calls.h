// The keyword arguments of calls to named functions in a Python file, for libraries whose
// configs are written as calls (PEFT's `LoraConfig(r=16, target_modules=[...])`), and the
// model ids passed to `from_pretrained("id")`. Generic: no library's names are known here.
// Read with tree-sitter's Python grammar (python_syntax.h), bounded like python_reader.cpp.
#pragma once

#include "opscope/config/positions.h"
#include "opscope/config/tree.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::config {

// One call of a wanted function (`LoraConfig(...)`, `peft.LoraConfig(...)`).
struct PythonCall {
  std::string function; // the name called, without its owner (`LoraConfig`)
  Range range;          // the whole call
  Range function_range; // the function as written (`peft.LoraConfig`)
  // The keyword arguments as a Map (Node::model = function): literals typed (Str, Int, Float,
  // Bool; None is Null), lists / tuples / sets as Seq, dicts with literal keys as Map, anything
  // else an Expression scalar holding its text. `partial` when a positional argument or
  // `**kwargs` passes values the reader cannot see.
  std::unique_ptr<Node> arguments;
};

// A string passed to `X.from_pretrained(...)` as its first argument (or
// `pretrained_model_name_or_path=`): a Hugging Face model id or a local path.
struct PretrainedName {
  std::string text;
  Range range;       // quotes included
  std::string owner; // what `from_pretrained` was called on, as written (`AutoModelForCausalLM`)
};

struct PythonCalls {
  std::vector<PythonCall> calls; // in source order
  std::vector<PretrainedName> pretrained;
  std::vector<SyntaxProblem> problems; // a parse that ran out of time, nesting too deep
};

// Limits: nesting kMaxNesting, at most kMaxPythonCalls calls and kMaxPythonValues values in all
// (a generated file stops there with one problem), the parse's time limit.
inline constexpr std::size_t kMaxPythonCalls = 10'000;
inline constexpr std::size_t kMaxPythonValues = 1'000'000;

// Never throws. `functions`: the names whose calls are read. A file that contains none of
// them (nor `from_pretrained`) is not parsed.
PythonCalls read_python_calls(std::string_view text, const std::vector<std::string>& functions);

// The model a script loads: the first `from_pretrained` called on something that is not a
// tokenizer, processor or config class (`AutoTokenizer`, `AutoProcessor`, `AutoConfig`).
const PretrainedName* loaded_model(const PythonCalls& calls);

} // namespace opscope::config
