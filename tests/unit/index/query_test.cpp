// Queries answer what coreai-opt's ModelInspector.get_matched_ops_for_* answers.
#include "model_fixtures.h"
#include "opscope/index/module_inputs.h"
#include "opscope/index/nearest.h"
#include "opscope/index/query.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

using namespace opscope::index;

namespace {

std::vector<std::string> names(const Index& index, const std::vector<int>& ops) {
  std::vector<std::string> out;
  for (int op : ops)
    out.push_back(index.ops[op].name);
  return out;
}

std::vector<std::string> run(const Index& index, Table kind, const std::string& text,
                             Compressor compressor = Compressor::None) {
  QueryEngine engine(index);
  return names(index, engine.match(Query(kind, text), compressor));
}

using Names = std::vector<std::string>;

} // namespace

TEST(Query, DocumentedMyModelExamples) {
  Index index = opscope::fixtures::my_model_index();
  const auto q = Compressor::Quantizer;
  EXPECT_EQ(run(index, Table::OpType, "linear", q), (Names{"linear", "linear_1"}));
  EXPECT_EQ(run(index, Table::OpName, "linear_1", q), (Names{"linear_1"}));
  EXPECT_EQ(run(index, Table::OpName, ".*linear.*", q), (Names{"linear", "linear_1"}));
  EXPECT_EQ(run(index, Table::ModuleName, "linear1", q), (Names{"linear"}));
  EXPECT_EQ(run(index, Table::ModuleName, "linear[12]", q), (Names{"linear", "linear_1"}));
  EXPECT_EQ(run(index, Table::ModuleType, "torch.nn.modules.linear.Linear", q),
            (Names{"linear", "linear_1"}));
}

TEST(Query, CompressorFiltersCandidates) {
  Index index = opscope::fixtures::my_model_index();
  EXPECT_EQ(run(index, Table::OpType, "relu"), (Names{"relu"}));
  EXPECT_TRUE(run(index, Table::OpType, "relu", Compressor::Quantizer).empty());
  EXPECT_EQ(run(index, Table::ModuleName, "relu"), (Names{"relu"}));
}

TEST(Query, NamesAreFullMatchesAndTypesExact) {
  Index index = opscope::fixtures::my_model_index();
  EXPECT_TRUE(run(index, Table::OpName, "linear_").empty());
  EXPECT_TRUE(run(index, Table::OpName, "inear").empty());
  EXPECT_TRUE(run(index, Table::ModuleName, "linear").empty());
  EXPECT_TRUE(run(index, Table::OpType, "Linear").empty());
  EXPECT_TRUE(run(index, Table::ModuleType, "Linear").empty());
  // A prefix range still has to full-match.
  EXPECT_EQ(run(index, Table::OpName, "lin.*_1"), (Names{"linear_1"}));
  EXPECT_EQ(run(index, Table::OpName, "linear(_1)?"), (Names{"linear", "linear_1"}));
}

TEST(Query, OrderIsModuleByModuleDepthFirstLikeAllOps) {
  // coreai-opt lists a module's own ops before its children's: the root's functional ops
  // (relu, relu_1, avg_pool2d, view) come first.
  Index index = opscope::fixtures::some_model_index();
  EXPECT_EQ(run(index, Table::OpName, ".*"),
            (Names{"relu", "relu_1", "avg_pool2d", "view", "conv2d", "batch_norm", "conv2d_1",
                   "cat", "linear"}));
  EXPECT_EQ(run(index, Table::OpType, "relu"), (Names{"relu", "relu_1"}));
}

TEST(Query, RootModuleIsInEveryStack) {
  // module_name "" or ".*" matches the root, so every op (as in coreai-opt).
  Index index = opscope::fixtures::some_model_index();
  EXPECT_EQ(run(index, Table::ModuleName, ".*").size(), 9u);
  EXPECT_EQ(run(index, Table::ModuleName, "").size(), 9u);
  EXPECT_EQ(run(index, Table::ModuleType, "some_model.SomeModel", Compressor::Quantizer),
            (Names{"avg_pool2d", "conv2d", "conv2d_1", "cat", "linear"}));
  EXPECT_EQ(run(index, Table::ModuleName, "conv.*"), (Names{"conv2d", "conv2d_1"}));
}

TEST(Query, InvalidPatternGivesRe2ReasonAndPosition) {
  Query query(Table::OpName, "layer[1");
  EXPECT_FALSE(query.usable());
  EXPECT_EQ(query.status().kind, PatternStatus::Kind::Invalid);
  EXPECT_NE(query.status().reason.find("missing ]"), std::string::npos) << query.status().reason;
  EXPECT_EQ(query.status().offset, 5);
  Index index = opscope::fixtures::my_model_index();
  EXPECT_TRUE(QueryEngine(index).match(query).empty());

  auto paren = check_pattern("conv(1");
  EXPECT_EQ(paren.kind, PatternStatus::Kind::Invalid);
  EXPECT_NE(paren.reason.find("missing )"), std::string::npos) << paren.reason;
}

TEST(Query, PythonOnlyConstructsAreClassifiedApart) {
  for (const std::string pattern :
       {"layer(?!1).*", "(?=conv).*", ".*(?<=_1)", ".*(?<!_1)", "(a)\\1", "(?P<x>a)(?P=x)"}) {
    auto status = check_pattern(pattern);
    EXPECT_EQ(status.kind, PatternStatus::Kind::PythonOnly) << pattern;
    EXPECT_GE(status.offset, 0) << pattern;
  }
  EXPECT_EQ(check_pattern("layer(?!1).*").offset, 5);
  EXPECT_NE(check_pattern("(a)\\1").reason.find("back-reference"), std::string::npos);
  // Inside a character class these are ordinary characters: valid for RE2.
  EXPECT_TRUE(check_pattern("[(?=]+").ok());
  EXPECT_TRUE(check_pattern("(?P<name>x)").ok());
}

TEST(Query, LiteralQueriesMatchOnlyThemselves) {
  EXPECT_TRUE(Query(Table::OpName, "linear_1").is_literal());
  EXPECT_FALSE(Query(Table::OpName, "linear.1").is_literal());
  Index index = opscope::fixtures::my_model_index();
  EXPECT_TRUE(run(index, Table::OpName, "linear1").empty());
}

// The resolution matches all of a config's module keys in one pass (RE2::Set); each must
// select exactly what it selects alone: full matches, the root for a pattern matching "",
// alternations anchored as a whole, literal names, unusable patterns selecting nothing.
TEST(Query, ModuleKeysMatchedTogetherSelectWhatEachSelectsAlone) {
  Index index = opscope::fixtures::my_model_index();
  QueryEngine engine(index);
  const std::vector<std::string> patterns = {"linear[12]",   "linear",      "lin.*",    ".*",
                                             "linear1|relu", "relu|linear", "(|x)",     "linear1",
                                             "linear[0-9]+", "inear.*",     "(?P<n>x)", "l.*1"};
  std::vector<std::shared_ptr<const Query>> queries;
  std::vector<const Query*> pointers;
  for (const std::string& p : patterns) {
    queries.push_back(engine.query(Table::ModuleName, p));
    pointers.push_back(queries.back()->usable() ? queries.back().get() : nullptr);
  }
  pointers.push_back(nullptr);
  std::vector<std::vector<int>> together = engine.match_modules_each(pointers);
  ASSERT_EQ(together.size(), pointers.size());
  for (std::size_t i = 0; i < patterns.size(); ++i)
    EXPECT_EQ(together[i], engine.match_modules(*queries[i])) << patterns[i];
  EXPECT_TRUE(together.back().empty());
  EXPECT_EQ(together[3].size(), index.modules.size()); // ".*": the root and every module
  EXPECT_EQ(together[6], std::vector<int>{0});         // "(|x)": the root only
  // The second check of the same keys answers the same (from what the engine kept).
  EXPECT_EQ(engine.match_modules_each(pointers), together);
}

// A 50,000-key config's patterns are more than one RE2::Set holds (its memory budget): matched
// without one, each pattern still selects what it selects alone, and asked again (the next
// check) the engine answers from what it kept.
TEST(Query, ThousandsOfModuleKeysMatchedTogetherSelectWhatEachSelectsAlone) {
  Index index = opscope::fixtures::my_model_index();
  QueryEngine engine(index);
  std::vector<std::shared_ptr<const Query>> queries;
  std::vector<const Query*> pointers;
  for (int i = 0; i < 3000; ++i) {
    std::string p = i % 3 == 0   ? "linear[12](_" + std::to_string(i) + ")?"
                    : i % 3 == 1 ? "relu(_" + std::to_string(i) + ")?"
                                 : "nothing(_" + std::to_string(i) + ")?";
    queries.push_back(engine.query(Table::ModuleName, p));
    pointers.push_back(queries.back().get());
  }
  std::vector<std::vector<int>> together = engine.match_modules_each(pointers);
  ASSERT_EQ(together.size(), pointers.size());
  for (std::size_t i = 0; i < pointers.size(); ++i) {
    QueryEngine fresh(index); // answers without anything kept
    ASSERT_EQ(together[i], fresh.match_modules(*queries[i])) << queries[i]->text();
  }
  EXPECT_EQ(together[0].size(), 2u); // linear1, linear2
  EXPECT_EQ(together[1].size(), 1u); // relu
  EXPECT_TRUE(together[2].empty());
  EXPECT_EQ(engine.match_modules_each(pointers), together);
}

TEST(ModuleInputs, ConcatInputsComeFromBn1AndConv2ThroughTheFunctionalRelus) {
  Index index = opscope::fixtures::some_model_index();
  auto inputs = module_inputs(index, "conc");
  ASSERT_TRUE(inputs.has_value());
  ASSERT_EQ(inputs->size(), 2u);
  const auto& first = (*inputs)[0];
  EXPECT_EQ(first.position, 0);
  EXPECT_EQ(first.producer, "relu");
  EXPECT_EQ(first.producer_type, "relu");
  ASSERT_EQ(first.origins.size(), 1u);
  EXPECT_EQ(first.origins[0].module,
            (ModuleContext{"bn1", "torch.nn.modules.batchnorm.BatchNorm2d"}));
  EXPECT_EQ(first.origins[0].op, "batch_norm");
  EXPECT_EQ(first.origins[0].via, (std::vector<std::string>{"relu"}));
  const auto& second = (*inputs)[1];
  EXPECT_EQ(second.producer, "relu_1");
  EXPECT_EQ(second.producer_type, "relu");
  ASSERT_EQ(second.origins.size(), 1u);
  EXPECT_EQ(second.origins[0].module, (ModuleContext{"conv2", "torch.nn.modules.conv.Conv2d"}));
  EXPECT_EQ(second.consumers.at(0), (BoundaryEdge{"cat", 1}));
}

TEST(ModuleInputs, ModelInputsAndDirectModulesAndUnknownModules) {
  Index index = opscope::fixtures::some_model_index();
  auto conv1 = module_inputs(index, "conv1");
  ASSERT_TRUE(conv1.has_value());
  ASSERT_EQ(conv1->at(0).origins.size(), 1u);
  EXPECT_EQ(conv1->at(0).origins[0].kind, InputOrigin::Kind::ModelInput);
  EXPECT_EQ(conv1->at(0).origins[0].op, "x");
  auto linear = module_inputs(index, "linear");
  ASSERT_EQ(linear->at(0).origins.size(), 1u);
  EXPECT_EQ(linear->at(0).origins[0].module.name, "conc");
  EXPECT_EQ(linear->at(0).origins[0].via, (std::vector<std::string>{"avg_pool2d", "view"}));
  auto bn1 = module_inputs(index, "bn1");
  EXPECT_EQ(bn1->at(0).origins.at(0).module.name, "conv1");
  EXPECT_TRUE(bn1->at(0).origins.at(0).via.empty());
  EXPECT_FALSE(module_inputs(index, "conv3").has_value());
}

TEST(Nearest, SuggestsCloseRealNames) {
  std::vector<std::string> modules = {"layer1", "layer2", "layer3", "layer4", "fc", "conv1"};
  EXPECT_EQ(nearest_names("layer9", modules),
            (std::vector<std::string>{"layer1", "layer2", "layer3"}));
  EXPECT_EQ(nearest_names("conv_1", modules), (std::vector<std::string>{"conv1"}));
  EXPECT_TRUE(nearest_names("transformer", modules).empty());
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);
}

// A long editing session (issues 14, 23): the patterns a config still uses stay compiled (its
// check holds them), patterns typed and deleted age out, and what no hold keeps stays within the
// small budget whatever the number of keystrokes.
TEST(QueryCache, KeepsHeldPatternsAndDropsStaleOnesWithinABound) {
  Index index = opscope::fixtures::my_model_index();
  QueryEngine engine(index);
  std::vector<std::string> config;
  for (int i = 0; i < 100; ++i)
    config.push_back("linear" + std::to_string(i) + "(_[0-9]+)?");
  std::vector<QueryEngine::Key> keys;
  for (const std::string& pattern : config)
    keys.push_back({Table::ModuleName, pattern});
  QueryEngine::Hold hold = engine.hold(keys);
  ASSERT_EQ(hold.size(), config.size());
  std::vector<std::shared_ptr<const Query>> in_use;
  for (const std::string& pattern : config)
    in_use.push_back(engine.query(Table::ModuleName, pattern));
  auto stale = engine.query(Table::ModuleName, "typed_then_deleted");
  const std::weak_ptr<const Query> stale_alive = stale;
  stale.reset();

  // 150,000 keystrokes, each a new variant, each followed by a re-check of the config.
  std::size_t most_unheld = 0;
  for (int keystroke = 0; keystroke < 150000; ++keystroke) {
    engine.query(Table::ModuleName, "variant" + std::to_string(keystroke) + ".*");
    if (keystroke % 1000 == 0) {
      for (std::size_t i = 0; i < config.size(); ++i) {
        ASSERT_EQ(engine.query(Table::ModuleName, config[i]), in_use[i])
            << "a pattern the config still uses was compiled again";
      }
    }
    most_unheld = std::max(most_unheld, engine.cached_bytes() - engine.held_bytes());
  }
  EXPECT_TRUE(stale_alive.expired()) << "a pattern nobody uses stayed compiled";
  EXPECT_LE(most_unheld, QueryCacheLimits{}.max_bytes);
  EXPECT_LE(QueryCacheLimits{}.max_bytes, std::size_t{32} << 20) << "tens of MB, not 512";
}

// Issue 23: the patterns of a document are freed when its hold goes (the document closed),
// except those another open document still holds; a re-check that replaces its hold keeps
// the patterns it still has compiled and frees only the one edited away. The held patterns
// are far beyond the budget of unheld ones: a 20,000-key config fits whole.
TEST(QueryCache, AClosedDocumentsPatternsAreFreedAndSharedOnesStay) {
  Index index = opscope::fixtures::my_model_index();
  QueryEngine engine(index);
  constexpr int kKeys = 20000;
  std::vector<std::string> first, second;
  for (int i = 0; i < kKeys; ++i)
    first.push_back("layer1\\.[0-9]+\\.conv" + std::to_string(i % 3) + "(_" + std::to_string(i) +
                    ")?");
  for (int i = 0; i < 100; ++i)
    second.push_back(first[static_cast<std::size_t>(i)]); // shared with the first document
  second.push_back("fc(_[0-9]+)?");
  auto keys_of = [](const std::vector<std::string>& patterns) {
    std::vector<QueryEngine::Key> keys;
    for (const std::string& p : patterns)
      keys.push_back({Table::ModuleName, p});
    return keys;
  };
  QueryEngine::Hold first_hold = engine.hold(keys_of(first));
  QueryEngine::Hold second_hold = engine.hold(keys_of(second));
  EXPECT_EQ(engine.cached_queries(), std::size_t{kKeys + 1}) << "every held pattern is kept";
  EXPECT_GT(engine.held_bytes(), QueryCacheLimits{}.max_bytes);
  std::weak_ptr<const Query> only_first = engine.query(Table::ModuleName, first.back());
  std::shared_ptr<const Query> shared = engine.query(Table::ModuleName, first.front());

  // The second document is re-checked after an edit of its last key: its new hold is taken
  // before the old one goes, so what it still uses is not compiled again.
  std::vector<std::string> edited = second;
  edited.back() = "fc";
  QueryEngine::Hold edited_hold = engine.hold(keys_of(edited));
  std::weak_ptr<const Query> edited_away = engine.query(Table::ModuleName, second.back());
  second_hold = std::move(edited_hold);
  EXPECT_TRUE(edited_away.expired()) << "the pattern edited away stayed compiled";
  EXPECT_EQ(engine.query(Table::ModuleName, first.front()), shared);

  first_hold.release(); // the first document closed
  EXPECT_TRUE(only_first.expired()) << "a closed document's pattern stayed compiled";
  EXPECT_EQ(engine.query(Table::ModuleName, first.front()), shared)
      << "a pattern the open document holds was freed with the closed one";
  EXPECT_LE(engine.cached_queries(), edited.size() + 2);

  second_hold = QueryEngine::Hold(); // the second document closed too
  shared.reset();
  EXPECT_EQ(engine.held_bytes(), 0u);
  EXPECT_LT(engine.cached_bytes(), std::size_t{64} << 10) << "only the few lookups since";
}

// A hold may outlive its engine (a model reloaded while a document is open): it then lets go of
// nothing, and an engine's matching of a held set of module keys answers as before the hold.
TEST(QueryCache, HoldsOutliveTheirEngineAndChangeNoAnswer) {
  Index index = opscope::fixtures::my_model_index();
  QueryEngine::Hold kept;
  {
    QueryEngine engine(index);
    std::vector<std::string> patterns = {"linear.*", "conv.*", "sub.*"};
    std::vector<const Query*> queries;
    std::vector<std::shared_ptr<const Query>> owned;
    for (const std::string& p : patterns) {
      owned.push_back(engine.query(Table::ModuleName, p));
      queries.push_back(owned.back().get());
    }
    auto before = engine.match_modules_each(queries);
    kept = engine.hold({{Table::ModuleName, patterns[0]},
                        {Table::ModuleName, patterns[1]},
                        {Table::ModuleName, patterns[2]}});
    EXPECT_EQ(engine.match_modules_each(queries), before);
    QueryEngine::Hold other = engine.hold({{Table::ModuleName, patterns[0]}});
    other.release(); // frees nothing: `kept` holds it too
    EXPECT_EQ(engine.match_modules_each(queries), before);
  }
  kept.release(); // the engine is gone
  EXPECT_EQ(kept.size(), 0u);
}

// The cache is bounded by estimated bytes too (issue 14): patterns with big RE2 programs
// age out long before the count bound, the size stays within the budget, and a pattern
// bigger than the whole budget is still answered.
TEST(QueryCache, StaysWithinItsByteBudget) {
  Index index = opscope::fixtures::my_model_index();
  constexpr std::size_t kBudget = std::size_t{4} << 20;
  QueryEngine engine(index, QueryCacheLimits{std::size_t{1} << 16, kBudget});
  auto kept = engine.query(Table::ModuleName, "linear[0-9]+");
  std::size_t most = 0;
  for (int i = 0; i < 3000; ++i) {
    // ~60 alternatives: a few hundred RE2 instructions each.
    std::string pattern = "(";
    for (int a = 0; a < 60; ++a)
      pattern += (a ? "|" : "") + std::string("alt") + std::to_string(a) + "_" + std::to_string(i);
    pattern += ")\\.conv[0-9]?";
    auto query = engine.query(Table::ModuleName, pattern);
    ASSERT_TRUE(query->usable());
    most = std::max(most, engine.cached_bytes());
    if (i % 10 == 0) { // a pattern the config keeps using stays compiled
      ASSERT_EQ(engine.query(Table::ModuleName, "linear[0-9]+"), kept);
    }
  }
  std::cout << "most held: " << most << " bytes in " << engine.cached_queries() << " patterns\n";
  EXPECT_LE(most, kBudget);
  EXPECT_GT(most, kBudget / 2) << "the budget is used, not a smaller bound";
  EXPECT_LT(engine.cached_queries(), 3000u) << "the count bound alone would have kept them all";

  std::string huge(kBudget / 8, 'a'); // its estimate alone passes the budget
  huge += ".*";
  auto big = engine.query(Table::ModuleName, huge);
  EXPECT_TRUE(big->usable());
  EXPECT_LE(engine.cached_bytes(), kBudget);
}

// Query::estimated_bytes follows what RE2 allocates: a regex costs more than a literal,
// and a bigger program more than a small one.
TEST(QueryCache, EstimatesGrowWithTheProgram) {
  Query literal(Table::ModuleName, "layer1");
  Query small(Table::ModuleName, "layer1\\..*");
  Query big(Table::ModuleName, "(a|b|c|d|e|f|g|h)[0-9]{1,20}_layer1\\..*");
  EXPECT_LT(literal.estimated_bytes(), 1024u);
  EXPECT_GT(small.estimated_bytes(), 6144u);
  EXPECT_GT(big.estimated_bytes(), small.estimated_bytes() + 1000);
}
