// The keys each source writes PEFT's fields under, and the one reader of their values.
#pragma once

#include "opscope/config/tree.h"
#include "opscope/dialects/peft/config.h"

#include <initializer_list>
#include <span>
#include <string_view>

namespace opscope::dialects::peft::detail {

enum class Field {
  TargetModules,
  TargetModulesCommaList, // LLaMA-Factory: "q_proj,v_proj"; "all" is all-linear
  TargetLinear,           // axolotl: lora_target_linear: true
  ExcludeModules,
  LayersToTransform,
  LayersPattern,
  Rank,
  Alpha,
  RankPattern,
  AlphaPattern,
  ModulesToSave,
  ModulesToSaveCommaList,
  TargetParameters,
  TaskType,
  UseDora,
  BaseModel,
};

struct FieldKey {
  std::string_view key;
  Field field;
};

// PEFT's own names (LoraConfig keywords and adapter_config.json).
inline constexpr FieldKey kPeftFieldsArray[] = {
    {"target_modules", Field::TargetModules},
    {"exclude_modules", Field::ExcludeModules},
    {"layers_to_transform", Field::LayersToTransform},
    {"layers_pattern", Field::LayersPattern},
    {"r", Field::Rank},
    {"lora_alpha", Field::Alpha},
    {"rank_pattern", Field::RankPattern},
    {"alpha_pattern", Field::AlphaPattern},
    {"modules_to_save", Field::ModulesToSave},
    {"target_parameters", Field::TargetParameters},
    {"task_type", Field::TaskType},
    {"use_dora", Field::UseDora},
    {"base_model_name_or_path", Field::BaseModel},
};
inline constexpr std::span<const FieldKey> kPeftFields = kPeftFieldsArray;

// axolotl's config keys (src/axolotl/utils/config: lora_* passed to LoraConfig).
inline constexpr FieldKey kAxolotlFieldsArray[] = {
    {"lora_target_modules", Field::TargetModules},
    {"lora_target_linear", Field::TargetLinear},
    {"lora_modules_to_save", Field::ModulesToSave},
    {"peft_layers_to_transform", Field::LayersToTransform},
    {"peft_layers_pattern", Field::LayersPattern},
    {"lora_r", Field::Rank},
    {"lora_alpha", Field::Alpha},
    {"peft_use_dora", Field::UseDora},
    {"base_model", Field::BaseModel},
};
inline constexpr std::span<const FieldKey> kAxolotlFields = kAxolotlFieldsArray;

// LLaMA-Factory's finetuning arguments (comma-separated name lists).
inline constexpr FieldKey kLlamaFactoryFieldsArray[] = {
    {"lora_target", Field::TargetModulesCommaList},
    {"additional_target", Field::ModulesToSaveCommaList},
    {"lora_rank", Field::Rank},
    {"lora_alpha", Field::Alpha},
    {"use_dora", Field::UseDora},
    {"model_name_or_path", Field::BaseModel},
};
inline constexpr std::span<const FieldKey> kLlamaFactoryFields = kLlamaFactoryFieldsArray;

// The value of `key` in `map` (an alias followed), or null.
const config::Node* find(const config::Node& map, std::string_view key);
// `key`'s value is a scalar equal to one of `values`.
bool scalar_is(const config::Node& map, std::string_view key,
               std::initializer_list<std::string_view> values);
// Every key of `fields` found in `map`, read into `out` (unreadable values noted).
void read_fields(const config::Node& map, std::span<const FieldKey> fields, PeftConfig& out);
// Every key of `map` as written (a call's keywords, a JSON object's keys), in order.
std::vector<Written> keys_written(const config::Node& map);

} // namespace opscope::dialects::peft::detail
