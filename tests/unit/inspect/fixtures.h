// Paths of the test-time .pt2 fixtures (make_fixtures.py) and source lines of
// fixture_models.py and python/fixtures/reference.py (MyModel), for the core/inspect tests.
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>

namespace opscope::inspect::testing {

inline std::string fixture(const std::string& name) {
  return std::string(OPSCOPE_INSPECT_FIXTURES) + "/" + name;
}

inline const char* models_py() {
  return OPSCOPE_INSPECT_MODELS_PY;
}

// python/fixtures/reference.py, where MyModel is.
inline const char* reference_py() {
  return OPSCOPE_REFERENCE_PY;
}

// 1-based line of `file` holding `text` (so edits there move no test).
inline int line_of(const std::string& text, const std::string& file = models_py()) {
  std::ifstream in(file);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number)
    if (line.find(text) != std::string::npos)
      return number;
  throw std::runtime_error(file + " has no line with: " + text);
}

} // namespace opscope::inspect::testing
