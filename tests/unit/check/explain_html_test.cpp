// The treemap page of `opscope explain --html` (core/dialects/coreai/explain/src/explain_html.h):
// what a user sees of a model too big to draw module by module, and that no module name can break
// the page.
#include "explain_html.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

namespace opscope::coreai_explain {
namespace {

using json = nlohmann::json;

json entry(const std::string& key, int line) {
  return {{"path", {"quantization_config", "module_name_configs", key}}, {"line", line}};
}

// A mixture-of-experts shape: `layers` blocks of `experts` experts (three Linear each) and
// four attention projections; every expert int4 (module_name_configs line 5), the rest int8.
json moe_explain(int layers, int experts) {
  json modules = json::array(), bits = json::object();
  auto add = [&](const std::string& name, std::int64_t weights, int bits_per_weight, json decider) {
    modules.push_back({{"module", name},
                       {"module_type", "torch.nn.modules.linear.Linear"},
                       {"entry", decider},
                       {"direct", true},
                       {"full_precision", false}});
    bits[name] = {
        {"weights", weights}, {"before", weights * 32}, {"after", weights * bits_per_weight}};
  };
  for (int l = 0; l < layers; ++l) {
    const std::string layer = "model.layers." + std::to_string(l);
    for (const char* p : {"q_proj", "k_proj", "v_proj", "o_proj"})
      add(layer + ".self_attn." + p, 4096, 8, entry("attn", 9));
    for (int e = 0; e < experts; ++e)
      for (const char* p : {"gate_proj", "up_proj", "down_proj"})
        add(layer + ".mlp.experts." + std::to_string(e) + "." + p, 1024, 4, entry("experts", 5));
  }
  add("lm_head", 65536, 32, nullptr);
  return {{"ops", json::array()},
          {"modules", modules},
          {"size",
           {{"bits_per_weight", {{"before", 32.0}, {"after", 5.0}}},
            {"bits", {{"before", 0}, {"after", 0}}},
            {"weights", 0},
            {"module_bits", bits}}}};
}

PageSource source() {
  return {"quant.yaml", "model.pt2", "graph", "", config::Compressor::Quantizer};
}

TEST(ExplainHtml, SmallModelOneRectanglePerModuleWithItsEntry) {
  const json data = treemap_data(moe_explain(2, 2), source());
  ASSERT_EQ(data["modules"].size(), 2u * (4 + 2 * 3) + 1);
  EXPECT_TRUE(data["aggregated"].is_null());
  for (const json& m : data["modules"]) {
    ASSERT_TRUE(m.contains("entry")) << m.dump();
    const json& e = m["entry"];
    const std::string text = data["entries"][e.get<std::size_t>()]["text"];
    const std::string name = m["name"];
    // No entry decides lm_head: coreai-opt's default global_config does.
    EXPECT_EQ(text, name == "lm_head"                           ? "(default global_config)"
                    : name.find("experts") != std::string::npos ? "module_name_configs > experts"
                                                                : "module_name_configs > attn");
  }
}

TEST(ExplainHtml, ManyModulesAggregatedWithinTheBoundKeepingEveryByte) {
  const json explain = moe_explain(48, 64); // 48 * (4 + 192) + 1 = 9,409 modules
  const json data = treemap_data(explain, source(), 2000);
  const json& rows = data["modules"];
  EXPECT_LE(rows.size(), 2000u);
  EXPECT_EQ(data["module_count"], 9409);
  EXPECT_EQ(data["aggregated"], rows.size());
  std::int64_t before = 0, after = 0, weights = 0;
  std::int64_t expected_before = 0, expected_after = 0, expected_weights = 0;
  std::size_t modules = 0;
  for (const auto& [_, b] : explain["size"]["module_bits"].items()) {
    expected_before += b["before"].get<std::int64_t>();
    expected_after += b["after"].get<std::int64_t>();
    expected_weights += b["weights"].get<std::int64_t>();
  }
  std::set<std::string> names;
  for (const json& r : rows) {
    before += r["before"].get<std::int64_t>();
    after += r["after"].get<std::int64_t>();
    weights += r["weights"].get<std::int64_t>();
    modules += r.value("modules", std::size_t{1});
    names.insert(r["name"]);
    if (r.contains("entries")) { // an aggregate says which entries decide its modules
      std::size_t decided = 0;
      for (const json& e : r["entries"])
        decided += e[1].get<std::size_t>();
      EXPECT_EQ(decided, r["modules"].get<std::size_t>()) << r.dump();
    }
  }
  EXPECT_EQ(before, expected_before);
  EXPECT_EQ(after, expected_after);
  EXPECT_EQ(weights, expected_weights);
  EXPECT_EQ(modules, 9409u);
  // The deepest groups go first: one expert's three projections become one rectangle, and
  // the attention projections and the head are still drawn one by one.
  EXPECT_TRUE(names.count("model.layers.0.self_attn.q_proj"));
  EXPECT_TRUE(names.count("lm_head"));
  EXPECT_FALSE(names.count("model.layers.0.mlp.experts.0.up_proj"));
}

TEST(ExplainHtml, PageSizeBoundedForAnyModel) {
  const std::string page = treemap_page(treemap_data(moe_explain(96, 128), source()));
  EXPECT_LT(page.size(), 1'000'000u) << "2,000 rectangles at most";
}

TEST(ExplainHtml, AModuleNameCannotEndTheDataScript) {
  json explain = moe_explain(1, 1);
  explain["size"]["module_bits"]["evil</script><script>alert(1)</script>"] = {
      {"weights", 1}, {"before", 32}, {"after", 32}};
  const std::string page = treemap_page(treemap_data(explain, source()));
  EXPECT_EQ(page.find("alert(1)</script>"), std::string::npos);
  EXPECT_NE(page.find("evil\\u003c/script>"), std::string::npos);
}

TEST(ExplainHtml, NoProjectedSizeNoTreemapAndSaysWhy) {
  json explain = moe_explain(1, 1);
  explain["size"] = {{"unavailable", "the pruner: bits_per_weight() has no answer"}};
  try {
    treemap_data(explain, source());
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bits_per_weight() has no answer"), std::string::npos);
  }
}

} // namespace
} // namespace opscope::coreai_explain
