#include "annotations.h"
#include "context_detail.h"
#include "opscope/coreai/config/context.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace opscope::config;
using opscope::testing::Annotations;

namespace {

CursorContext context(const std::string& annotated, Format format = Format::Yaml) {
  Annotations a(annotated);
  return context_at(read_config(a.code(), format), a.point());
}

// The replace range, with the cursor removed from the annotation: `[[` `]]` mark it.
Range replace_range(const std::string& annotated) {
  std::string without_cursor = annotated;
  without_cursor.erase(std::remove(without_cursor.begin(), without_cursor.end(), '^'),
                       without_cursor.end());
  return Annotations(without_cursor).range();
}

// Reads `text` and each of its one-character deletions (what an editor produces while
// someone types) and hands each to `use(edited, document)`.
template <typename Use> void for_each_deletion(const std::string& text, Format format, Use use) {
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    std::string edited = cut == text.size() ? text : text.substr(0, cut) + text.substr(cut + 1);
    use(edited, read_config(edited, format));
  }
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST(CursorContext, NewKeyOnABlankLineUnderModuleNameConfigs) {
  std::string text = R"(quantization_config:
  module_name_configs:
    [[^]]
)";
  CursorContext ctx = context(text);
  ASSERT_EQ(ctx.kind, CursorContext::Kind::PatternKey);
  EXPECT_EQ(ctx.table, Table::ModuleName);
  EXPECT_EQ(ctx.scope.kind, Scope::Kind::Global);
  EXPECT_EQ(ctx.replace, replace_range(text));
  EXPECT_EQ(ctx.typed, "");
}

TEST(CursorContext, HalfTypedKeyReplacesTheWholeKey) {
  std::string text = R"(quantization_config:
  module_name_configs:
    layer1: null
    [[lay^er2]]: null
)";
  CursorContext ctx = context(text);
  ASSERT_EQ(ctx.kind, CursorContext::Kind::PatternKey);
  EXPECT_EQ(ctx.typed, "lay");
  EXPECT_EQ(ctx.replace, replace_range(text));
}

TEST(CursorContext, OpenedQuoteIsPartOfTheReplacement) {
  std::string text = R"(quantization_config:
  module_name_configs:
    [["layer1\\.^]]
)";
  CursorContext ctx = context(text);
  ASSERT_EQ(ctx.kind, CursorContext::Kind::PatternKey);
  EXPECT_EQ(ctx.quote, '"');
  EXPECT_EQ(ctx.typed, "layer1\\.");
  EXPECT_EQ(ctx.replace, replace_range(text));

  std::string closed = R"(quantization_config:
  module_name_configs:
    [['lay^']]
)";
  ctx = context(closed);
  EXPECT_EQ(ctx.quote, '\'');
  EXPECT_EQ(ctx.replace, replace_range(closed)) << "an editor's auto-closed quote is replaced too";
}

TEST(CursorContext, OpNameKeyKnowsItsEnclosingModuleScope) {
  CursorContext ctx = context(R"(quantization_config:
  module_name_configs:
    layer1\..*:
      op_name_config:
        con^
  module_type_configs:
    torch.nn.modules.linear.Linear:
      op_type_config:
)");
  ASSERT_EQ(ctx.kind, CursorContext::Kind::PatternKey);
  EXPECT_EQ(ctx.table, Table::OpName);
  EXPECT_EQ(ctx.scope.kind, Scope::Kind::ModuleName);
  EXPECT_EQ(ctx.scope.key, "layer1\\..*");

  ctx = context(R"(quantization_config:
  module_type_configs:
    torch.nn.modules.linear.Linear:
      op_type_config:
        ^
)");
  ASSERT_EQ(ctx.kind, CursorContext::Kind::PatternKey);
  EXPECT_EQ(ctx.table, Table::OpType);
  EXPECT_EQ(ctx.scope.kind, Scope::Kind::ModuleType);
  EXPECT_EQ(ctx.scope.key, "torch.nn.modules.linear.Linear");
}

TEST(CursorContext, ModuleTypeKeyWhileTheRestOfTheFileIsBroken) {
  CursorContext ctx = context(R"(quantization_config:
  global_config: {op_type_config: {linear: null
  module_type_configs:
    torch.nn.^
  module_name_configs:
    "unterminated
)");
  ASSERT_EQ(ctx.kind, CursorContext::Kind::PatternKey);
  EXPECT_EQ(ctx.table, Table::ModuleType);
  EXPECT_EQ(ctx.typed, "torch.nn.");
}

TEST(CursorContext, FieldNamesAtEachLevel) {
  CursorContext ctx = context("quantization_config:\n  glo^\n");
  ASSERT_EQ(ctx.kind, CursorContext::Kind::FieldName);
  EXPECT_EQ(ctx.level, FieldLevel::TopConfig);
  EXPECT_TRUE(has(ctx.fields, "global_config"));
  EXPECT_TRUE(has(ctx.fields, "execution_mode"));

  ctx = context("kmeans_palettization_config:\n  global_config:\n    ^\n");
  ASSERT_EQ(ctx.kind, CursorContext::Kind::FieldName);
  EXPECT_EQ(ctx.level, FieldLevel::ModuleConfig);
  EXPECT_TRUE(has(ctx.fields, "op_name_config"));
  EXPECT_FALSE(has(ctx.fields, "op_input_spec")) << "palettization is weight-only";
  EXPECT_FALSE(has(ctx.fields, "execution_mode"));

  ctx = context(
      "quantization_config:\n  global_config:\n    op_type_config:\n      linear:\n        ^\n");
  ASSERT_EQ(ctx.kind, CursorContext::Kind::FieldName);
  EXPECT_EQ(ctx.level, FieldLevel::OpConfig);
  EXPECT_TRUE(has(ctx.fields, "op_output_spec"));

  ctx = context("qua^");
  ASSERT_EQ(ctx.kind, CursorContext::Kind::FieldName);
  EXPECT_EQ(ctx.level, FieldLevel::Document);
  EXPECT_TRUE(has(ctx.fields, "quantization_config"));
  EXPECT_TRUE(has(ctx.fields, "magnitude_pruning_config"));
}

TEST(CursorContext, ExecutionModeValue) {
  std::string text = "quantization_config:\n  execution_mode: [[ea^]]\n";
  CursorContext ctx = context(text);
  ASSERT_EQ(ctx.kind, CursorContext::Kind::FieldValue);
  EXPECT_EQ(ctx.field, "execution_mode");
  EXPECT_TRUE(has(ctx.values, "graph"));
  EXPECT_EQ(ctx.typed, "ea");
  EXPECT_EQ(ctx.replace, replace_range(text));
}

TEST(CursorContext, InsideAnAnchoredSpecThereIsNoPatternContext) {
  EXPECT_EQ(context("quantization_spec:\n  s: &s\n    dty^\n").kind, CursorContext::Kind::None);
  EXPECT_EQ(context("quantization_config:\n  # module_name_configs: ^\n").kind,
            CursorContext::Kind::None);
}

TEST(CursorContext, JsonKeys) {
  std::string text = R"({"quantization_config": {"module_name_configs": {[["layer1\\.^]]
)";
  CursorContext ctx = context(text, Format::Json);
  ASSERT_EQ(ctx.kind, CursorContext::Kind::PatternKey);
  EXPECT_EQ(ctx.table, Table::ModuleName);
  EXPECT_EQ(ctx.quote, '"');
  EXPECT_EQ(ctx.typed, "layer1\\.");
  EXPECT_EQ(ctx.replace, replace_range(text));

  text =
      R"({"quantization_config": {"global_config": {"op_type_config": {"linear": null, [[^]]}}}})";
  ctx = context(text, Format::Json);
  ASSERT_EQ(ctx.kind, CursorContext::Kind::PatternKey);
  EXPECT_EQ(ctx.table, Table::OpType);
  EXPECT_EQ(ctx.replace, replace_range(text));

  text =
      R"({"quantization_config": {"module_type_configs": {"torch.nn.modules.linear.Linear": {"op_name_config": {
      [["^"]]
    }}}}})";
  ctx = context(text, Format::Json);
  ASSERT_EQ(ctx.kind, CursorContext::Kind::PatternKey);
  EXPECT_EQ(ctx.table, Table::OpName);
  EXPECT_EQ(ctx.scope.key, "torch.nn.modules.linear.Linear");
  EXPECT_EQ(ctx.replace, replace_range(text));
}

TEST(CursorContext, CursorPastTheEndOfALineIsClamped) {
  Annotations a("quantization_config:\n  module_name_configs:\n    fc\n");
  CursorContext ctx = context_at(read_config(a.code(), Format::Yaml), Position{2, 40});
  ASSERT_EQ(ctx.kind, CursorContext::Kind::PatternKey);
  EXPECT_EQ(ctx.typed, "fc");
}

TEST(CursorContext, EveryPositionOfEveryEditIsSafe) {
  // Each single-character deletion of a realistic config, with a cursor at every
  // position: what an editor produces while someone types; none may crash or hang.
  const std::string yaml = R"(quantization_spec:
  s: &s {dtype: int8}
quantization_config:
  module_name_configs:
    "layer1\\.0": {op_name_config: {'conv.*': *s}}
    fc:
      <<: *s
      op_type_config:
        - linear
)";
  const std::string json =
      R"({"quantization_config": {"module_name_configs": {"a\\.b": {"op_type_config": {"linear": null}}}}})";
  for (const auto& [text, format] :
       {std::pair{yaml, Format::Yaml}, std::pair{json, Format::Json}}) {
    for_each_deletion(text, format, [](const std::string&, const ConfigDocument& doc) {
      for (int line = 0; line < 10; ++line)
        for (int col = 0; col < 60; col += 7)
          context_at(doc, Position{line, col});
    });
  }
  SUCCEED();
}

TEST(CursorContext, YamlFlowMappings) {
  std::string text =
      "quantization_config:\n  global_config: {op_type_config: {linear: null, [[^]]}}\n";
  CursorContext ctx = context(text);
  ASSERT_EQ(ctx.kind, CursorContext::Kind::PatternKey);
  EXPECT_EQ(ctx.table, Table::OpType);
  EXPECT_EQ(ctx.replace, replace_range(text));

  text = "quantization_config:\n  module_name_configs: {[[\"enc^]]\n  global_config: {}\n";
  ctx = context(text);
  ASSERT_EQ(ctx.kind, CursorContext::Kind::PatternKey);
  EXPECT_EQ(ctx.table, Table::ModuleName);
  EXPECT_EQ(ctx.typed, "enc");
  EXPECT_EQ(ctx.replace, replace_range(text));
}

TEST(CursorContext, TheShortcutInsideAPatternKeyAgreesWithTheReRead) {
  // context_at answers from the document when the cursor is in a pattern key and
  // re-reads it with a marker elsewhere. Wherever the shortcut answers, in realistic
  // configs and every one-character deletion of them, both must say the same.
  const std::string yaml = R"(quantization_spec:
  s: &s {dtype: int8}
quantization_config:
  module_name_configs:
    "layer1\\.0": {op_name_config: {'conv.*': *s}}
    'it''s.*': null
    fc:
      <<: *s
      op_type_config:
        - linear
    encoder\.layer\..*:
      op_name_config:
        "l\u0061yer.*" : null
        plain: null
  module_type_configs:
    torch.nn.Linear: {op_type_config: {linear: null, conv2d}}
)";
  const std::string json =
      R"({"quantization_config": {"module_name_configs": {"a\\.b": {"op_type_config": {"linear": null}}, "c\u0064": null, "half)";
  using detail::context_by_marker;
  using detail::context_in_pattern_key;
  int answered = 0;
  for (const auto& [text, format] :
       {std::pair{yaml, Format::Yaml}, std::pair{json, Format::Json}}) {
    for_each_deletion(text, format, [&](const std::string& edited, const ConfigDocument& doc) {
      for (int line = 0; line < 18; ++line) {
        for (int col = 0; col < 100; ++col) {
          Position at{line, col};
          auto fast = context_in_pattern_key(doc, at);
          if (!fast)
            continue;
          ++answered;
          CursorContext slow = context_by_marker(doc, at);
          SCOPED_TRACE(edited + "\nat " + std::to_string(line) + ":" + std::to_string(col));
          ASSERT_EQ(fast->kind, slow.kind);
          EXPECT_EQ(fast->table, slow.table);
          EXPECT_EQ(fast->scope, slow.scope);
          EXPECT_EQ(fast->scope.key_range, slow.scope.key_range);
          EXPECT_EQ(fast->replace, slow.replace);
          EXPECT_EQ(fast->typed, slow.typed);
          EXPECT_EQ(fast->quote, slow.quote);
          EXPECT_EQ(fast->format, slow.format);
          EXPECT_EQ(fast->level, slow.level);
          EXPECT_EQ(fast->root, slow.root);
        }
      }
    });
  }
  EXPECT_GT(answered, 10000); // the shortcut does answer, in both formats
}
