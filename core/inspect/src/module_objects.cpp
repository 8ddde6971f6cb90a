#include "module_objects.h"

#include "json_record.h"

#include <nlohmann/json.hpp>

namespace opscope::inspect {
namespace {

using json = nlohmann::json;

[[noreturn]] void malformed(const Archive& archive, const std::string& what) {
  malformed_record(archive, kModuleObjectsRecord, what);
}

std::string string_at(const Archive& archive, const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string())
    malformed(archive, std::string("a module without a string \"") + key + "\"");
  return it->get<std::string>();
}

} // namespace

std::vector<index::ModuleObject> archive_module_objects(const Archive& archive) {
  std::vector<index::ModuleObject> objects;
  if (!archive.records || !archive.records->has(kModuleObjectsRecord))
    return objects;
  json doc = read_json_record(archive, kModuleObjectsRecord, "opscope-modules");
  auto modules = doc.find("modules");
  if (modules == doc.end() || !modules->is_array())
    malformed(archive, "no \"modules\" list");
  objects.reserve(modules->size());
  for (const json& entry : *modules) {
    if (!entry.is_object())
      malformed(archive, "a module that is not an object");
    index::ModuleObject& object = objects.emplace_back();
    object.name = string_at(archive, entry, "name");
    object.type = string_at(archive, entry, "type");
    if (auto aliases = entry.find("aliases"); aliases != entry.end()) {
      if (!aliases->is_array())
        malformed(archive, "\"aliases\" of " + object.name + " is not a list");
      for (const json& alias : *aliases) {
        if (!alias.is_string())
          malformed(archive, "an alias of " + object.name + " is not a string");
        object.aliases.push_back(alias.get<std::string>());
      }
    }
    // Optional (python/opscope_export/module_names.py): what PEFT's isinstance tests see.
    if (auto mro = entry.find("mro"); mro != entry.end()) {
      if (!mro->is_array())
        malformed(archive, "\"mro\" of " + object.name + " is not a list");
      for (const json& base : *mro) {
        if (!base.is_string())
          malformed(archive, "a class in the \"mro\" of " + object.name + " is not a string");
        object.mro.push_back(base.get<std::string>());
      }
    }
    if (auto model_type = entry.find("model_type"); model_type != entry.end()) {
      if (!model_type->is_string())
        malformed(archive, "\"model_type\" of " + object.name + " is not a string");
      object.model_type = model_type->get<std::string>();
    }
    if (auto head = entry.find("output_embeddings"); head != entry.end()) {
      if (!head->is_boolean())
        malformed(archive, "\"output_embeddings\" of " + object.name + " is not a boolean");
      object.output_embeddings = head->get<bool>();
    }
    // Optional: what llm-compressor's linearize_moe reads of the class's decorator.
    if (auto experts = entry.find("experts_implementation"); experts != entry.end()) {
      auto flag = [&](const char* key) {
        auto it = experts->is_object() ? experts->find(key) : experts->end();
        if (it == experts->end() || !it->is_boolean())
          malformed(archive, "\"experts_implementation\" of " + object.name + " has no boolean \"" +
                                 key + "\"");
        return it->get<bool>();
      };
      object.experts_implementation = {flag("is_transposed"), flag("has_gate")};
    }
    if (auto children = entry.find("children"); children != entry.end()) {
      if (!children->is_array())
        malformed(archive, "\"children\" of " + object.name + " is not a list");
      for (const json& child : *children) {
        if (!child.is_number_integer() || child.get<long long>() <= 0 ||
            child.get<long long>() >= static_cast<long long>(modules->size()))
          malformed(archive, "a child of " + object.name + " is not a module's position");
        object.children.push_back(child.get<int>());
      }
    }
  }
  return objects;
}

} // namespace opscope::inspect
