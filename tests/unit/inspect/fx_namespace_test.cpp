// The port of torch.fx's node naming against the names torch itself gave
// (fx_namespace_cases.json, written by fx_namespace_cases.py;
// tests/fidelity/test_fx_naming.py checks the installed torch still names so).
#include "fx_namespace.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace opscope::inspect {
namespace {

const nlohmann::json& cases() {
  static const nlohmann::json parsed = [] {
    std::ifstream in(OPSCOPE_FX_NAMESPACE_CASES);
    EXPECT_TRUE(in) << "cannot read " << OPSCOPE_FX_NAMESPACE_CASES;
    return nlohmann::json::parse(in);
  }();
  return parsed;
}

TEST(FxNamespace, NamesEachSequenceAsTorchDoes) {
  ASSERT_FALSE(cases()["sequences"].empty());
  for (const auto& [sequence, calls] : cases()["sequences"].items()) {
    FxNamespace names;
    int step = 0;
    for (const auto& call : calls) {
      const std::string candidate = call[0];
      EXPECT_EQ(names.create(candidate), call[1].get<std::string>())
          << sequence << ", call " << step << ": create(\"" << candidate << "\")";
      ++step;
    }
  }
}

TEST(FxNamespace, RefusesEveryNameTorchRefuses) {
  ASSERT_GT(cases()["illegal_names"].size(), 100u);
  for (const auto& call : cases()["illegal_names"]) {
    const std::string name = call[0];
    const std::string renamed = call[1];
    // Torch lets "None" through (its table maps it to the object None, the default `obj`).
    EXPECT_EQ(is_illegal_name(name), renamed != name) << name;
    EXPECT_EQ(FxNamespace().create(name), renamed) << name;
  }
}

TEST(FxNamespace, AllowsOrdinaryNames) {
  for (const char* name : {"linear", "x", "getitem", "conv2d", "Input", "print_1"})
    EXPECT_FALSE(is_illegal_name(name)) << name;
}

TEST(FxNamespace, TargetsBecomeTheNamesTorchDerivesFromThem) {
  ASSERT_FALSE(cases()["targets"].empty());
  for (const auto& target : cases()["targets"])
    EXPECT_EQ(target_to_str(target[0]), target[1].get<std::string>()) << target[0];
}

} // namespace
} // namespace opscope::inspect
