// core/config's field names (completion, and the reader's `unknown-field` errors) are still
// a hand-written list in core/dialects/coreai/tables/src/compressors.cpp, beside coreai-opt's
// models in core/dialects/coreai/schema. Until config takes them from the schema (issue 26.1), this
// ties the two: a list that drifts from the built-in 0.4.0 models would offer a field coreai-opt
// refuses, or report one key twice (`unknown-field` and `schema-unknown-key`).
#include "opscope/coreai/compressors.h"
#include "opscope/coreai/config/context.h"
#include "opscope/schema/schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

namespace opscope::schema {
namespace {

using config::FieldLevel;

std::set<std::string> listed(FieldLevel level, coreai::Compressor c) {
  std::vector<std::string> names = config::field_names(level, c);
  return {names.begin(), names.end()};
}

bool has_validator(const Model& model, std::string_view name) {
  return std::find(model.validators.begin(), model.validators.end(), name) !=
         model.validators.end();
}

// The model's fields as a config may use them: a weight-only compressor's validators refuse
// the input and output specs its models still declare.
std::set<std::string> usable(const Model& model) {
  std::set<std::string> names;
  for (const Field& f : model.fields)
    names.insert(f.name);
  if (has_validator(model, "validate_weight_only_op_constraint") ||
      has_validator(model, "validate_weight_only_module_constraint"))
    for (const char* refused : {"op_input_spec", "op_output_spec"})
      names.erase(refused);
  if (has_validator(model, "validate_weight_only_module_constraint"))
    for (const char* refused : {"module_input_spec", "module_output_spec"})
      names.erase(refused);
  return names;
}

TEST(FieldLists, EveryCompressorsFieldsAreItsBuiltinModelsFields) {
  std::shared_ptr<const Schema> s = builtin();
  const std::pair<FieldLevel, coreai::ConfigLevel> levels[] = {
      {FieldLevel::TopConfig, coreai::ConfigLevel::Top},
      {FieldLevel::ModuleConfig, coreai::ConfigLevel::Module},
      {FieldLevel::OpConfig, coreai::ConfigLevel::Op}};
  for (const coreai::CompressorInfo& c : coreai::compressors())
    for (const auto& [level, config_level] : levels) {
      std::string name = coreai::config_class(c, config_level);
      const Model* model = s->model(name);
      ASSERT_NE(model, nullptr) << name << " is not in the built-in schema";
      EXPECT_TRUE(model->forbid) << name << ": `unknown-field` says coreai-opt rejects the key";
      EXPECT_EQ(listed(level, c.id), usable(*model))
          << name << ": update the field lists of " << c.name
          << " in core/dialects/coreai/tables/src/compressors.cpp (or weight_only)";
    }
}

TEST(FieldLists, TheTopLevelIsTheSchemasRootAndSpecKeys) {
  std::set<std::string> keys;
  for (const Root& r : builtin()->roots)
    keys.insert({r.config_key, r.spec_key});
  EXPECT_EQ(listed(FieldLevel::Document, coreai::Compressor::None), keys);
}

} // namespace
} // namespace opscope::schema
