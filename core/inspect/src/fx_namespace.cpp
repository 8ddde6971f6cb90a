#include "fx_namespace.h"

#include <algorithm>
#include <utility>

namespace opscope::inspect {
namespace {

// torch.fx.graph._illegal_names (Python keywords, builtins and FX's custom
// builtins, Python 3.11): a node may not be named like these, sorted. Not "None":
// it maps to the object None there, which create_name(name, obj=None) lets through.
constexpr std::string_view kIllegalNames[] = {
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BaseExceptionGroup",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "Ellipsis",
    "EncodingWarning",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "False",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "NoneType",
    "NotADirectoryError",
    "NotImplemented",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "True",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
    "__build_class__",
    "__debug__",
    "__doc__",
    "__import__",
    "__loader__",
    "__name__",
    "__package__",
    "__spec__",
    "abs",
    "aiter",
    "all",
    "and",
    "anext",
    "any",
    "as",
    "ascii",
    "assert",
    "async",
    "await",
    "bin",
    "bool",
    "break",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "class",
    "classmethod",
    "compile",
    "complex",
    "continue",
    "copyright",
    "credits",
    "def",
    "del",
    "delattr",
    "device",
    "dict",
    "dir",
    "divmod",
    "elif",
    "else",
    "enumerate",
    "eval",
    "except",
    "exec",
    "exit",
    "filter",
    "finally",
    "float",
    "for",
    "format",
    "from",
    "frozenset",
    "fx_pytree",
    "getattr",
    "global",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "if",
    "import",
    "in",
    "inf",
    "input",
    "int",
    "is",
    "isinstance",
    "issubclass",
    "iter",
    "lambda",
    "len",
    "license",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "nan",
    "next",
    "nonlocal",
    "not",
    "object",
    "oct",
    "open",
    "or",
    "ord",
    "pass",
    "pow",
    "print",
    "property",
    "pytree",
    "quit",
    "raise",
    "range",
    "repr",
    "return",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "torch",
    "try",
    "tuple",
    "type",
    "vars",
    "while",
    "with",
    "yield",
    "zip",
};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_ident_char(char c) {
  return is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool is_identifier(const std::string& s) {
  if (s.empty() || is_digit(s[0]))
    return false;
  for (char c : s)
    if (!is_ident_char(c))
      return false;
  return true;
}

// `^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$`
std::pair<std::string, std::optional<long>> split_number(const std::string& s) {
  auto us = s.rfind('_');
  if (us != std::string::npos && us > 0 && us + 1 < s.size() && us + 1 + 9 >= s.size()) {
    bool digits = true;
    for (std::size_t i = us + 1; i < s.size(); ++i)
      digits = digits && is_digit(s[i]);
    if (digits)
      return {s.substr(0, us), std::stol(s.substr(us + 1))};
  }
  return {s, std::nullopt};
}

} // namespace

bool is_illegal_name(std::string_view name) {
  return std::binary_search(std::begin(kIllegalNames), std::end(kIllegalNames), name);
}

std::string FxNamespace::create(std::string candidate) {
  if (!is_identifier(candidate)) {
    std::string cleaned;
    bool in_illegal = false;
    for (char c : candidate) {
      if (is_ident_char(c)) {
        cleaned += c;
        in_illegal = false;
      } else if (!in_illegal) {
        cleaned += '_';
        in_illegal = true;
      }
    }
    candidate = cleaned.empty() ? "_unnamed" : cleaned;
    if (is_digit(candidate[0]))
      candidate = "_" + candidate;
  }
  auto [base, number] = split_number(candidate);
  long num = 0;
  if (!number || used_.count(candidate)) {
    auto it = base_count_.find(base);
    num = it == base_count_.end() ? 0 : it->second;
    if (is_illegal_name(candidate))
      candidate = base + "_" + std::to_string(++num);
  } else {
    num = *number;
  }
  while (used_.count(candidate))
    candidate = base + "_" + std::to_string(++num);
  used_.insert(candidate);
  base_count_[base] = num;
  return candidate;
}

// Graph::_target_to_str for an OpOverload: "<op>.<overload>" snake-cased.
std::string target_to_str(const std::string& target) {
  std::string name = target;
  auto last = target.rfind('.');
  if (last != std::string::npos && last > 0) {
    auto before = target.rfind('.', last - 1);
    name = target.substr(before == std::string::npos ? 0 : before + 1);
  }
  std::string out;
  bool prev_lower = false;
  for (char c : name) {
    bool upper = c >= 'A' && c <= 'Z';
    if (upper && prev_lower)
      out += '_';
    prev_lower = (c >= 'a' && c <= 'z');
    out += upper ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

} // namespace opscope::inspect
