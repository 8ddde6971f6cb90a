#include "explain.h"
#include "opscope/dialects/written.h"

#include "opscope/dialects/llmcompressor/features.h"
#include "opscope/dialects/llmcompressor/resolve.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>

namespace opscope::dialects::llmcompressor {
namespace {

using Json = nlohmann::ordered_json;

// compressed-tensors' QuantizationArgs field names, so a reader compares them one to one.
Json args_json(const std::optional<Quant>& q) {
  if (!q)
    return nullptr;
  Json dynamic = q->dynamic == "true"    ? Json(true)
                 : q->dynamic == "false" ? Json(false)
                                         : Json(q->dynamic);
  return {{"num_bits", q->bits},
          {"type", q->is_float ? "float" : "int"},
          {"strategy", q->strategy},
          {"group_size", q->group_size ? Json(q->group_size) : Json(nullptr)},
          {"symmetric", q->symmetric},
          {"dynamic", std::move(dynamic)}};
}

Json scheme_json(const Scheme& s) {
  return {{"weights", args_json(s.weights)},
          {"input_activations", args_json(s.input_activations)},
          {"output_activations", args_json(s.output_activations)}};
}

const std::string& name_of(const index::Index& model, int module) {
  return model.named_modules()[static_cast<std::size_t>(module)].name;
}

Json modifier_json(const Modifier& m, const Resolution& r, const index::Index& model) {
  Json groups = Json::array();
  for (const Group& g : r.groups)
    groups.push_back({{"name", g.name},
                      {"preset", g.preset ? Json(*g.preset) : Json(nullptr)},
                      {"scheme", scheme_json(g.scheme)}});
  Json modules = Json::array();
  for (const Applied& a : r.applied) {
    const Group& g = r.groups[static_cast<std::size_t>(a.group)];
    modules.push_back({{"module", name_of(model, a.module)},
                       {"type", model.named_modules()[static_cast<std::size_t>(a.module)].type},
                       {"group", g.name},
                       {"target", r.targets[static_cast<std::size_t>(a.target)].text.text},
                       {"attention", a.attention},
                       {"scheme", scheme_json(g.scheme)}});
  }
  Json ignored = Json::array();
  for (const Ignored& i : r.ignored)
    ignored.push_back({{"module", name_of(model, i.module)},
                       {"ignored_by", m.ignore[static_cast<std::size_t>(i.ignore_entry)].text},
                       {"target", r.targets[static_cast<std::size_t>(i.target)].text.text}});
  Json untouched = Json::array();
  for (int u : r.untouched)
    untouched.push_back(name_of(model, u));
  Json mappings = Json::array();
  for (const ResolvedMapping& rm : r.mappings) {
    Json sets = Json::array();
    for (const auto& set : rm.sets) {
      Json one = Json::array();
      for (const auto& target : set) {
        Json names = Json::array();
        for (int module : target)
          names.push_back(name_of(model, module));
        one.push_back(std::move(names));
      }
      sets.push_back(std::move(one));
    }
    mappings.push_back(
        {{"sets", std::move(sets)}, {"error", rm.error ? Json(*rm.error) : Json(nullptr)}});
  }
  return {{"class", m.class_name},
          {"stage", m.stage},
          {"line", m.anchor.start.line + 1},
          {"groups", std::move(groups)},
          {"quantized", std::move(modules)},
          {"ignored", std::move(ignored)},
          {"untouched", std::move(untouched)},
          {"mappings", std::move(mappings)},
          {"error", r.error ? Json(*r.error) : Json(nullptr)}};
}

void modifier_text(const std::string& where, const Modifier& m, const Resolution& r,
                   const index::Index& model, std::ostream& out) {
  const auto& modules = model.named_modules();
  out << where << ": " << m.class_name << (m.stage.empty() ? "" : " (" + m.stage + ")");
  if (quantizes(m.class_name))
    out << " quantizes " << r.applied.size() << " of " << modules.size() << " modules, "
        << r.ignored.size() << " ignored";
  else
    out << ": " << r.mappings.size() << " mapping" << (r.mappings.size() == 1 ? "" : "s");
  if (!r.untouched.empty())
    out << ", " << r.untouched.size() << " targeted but left as they are (not Linear)";
  out << "\n";
  std::vector<int> listed;
  for (const Applied& a : r.applied)
    listed.push_back(a.module);
  for (const Ignored& i : r.ignored)
    listed.push_back(i.module);
  std::sort(listed.begin(), listed.end()); // named_modules() order
  std::size_t name_width = 6;
  for (int module : listed)
    name_width = std::max(name_width, name_of(model, module).size());
  auto pad = [](std::string s, std::size_t width) {
    s.resize(std::max(s.size(), width), ' ');
    return s;
  };
  if (!listed.empty())
    out << "  " << pad("module", name_width) << "  " << pad("type", 12) << "  scheme\n";
  for (int module : listed)
    out << "  " << pad(name_of(model, module), name_width) << "  "
        << pad(last_part(modules[static_cast<std::size_t>(module)].type), 12) << "  "
        << explain_module(m, r, model, module) << "\n";
  for (std::size_t i = 0; i < r.mappings.size(); ++i) {
    const ResolvedMapping& rm = r.mappings[i];
    out << "  mapping " << i + 1 << ": " << rm.sets.size() << " block"
        << (rm.sets.size() == 1 ? "" : "s");
    for (std::size_t s = 0; s < rm.sets.size(); ++s) {
      out << (s ? "; " : ": ");
      for (std::size_t t = 0; t < rm.sets[s].size(); ++t) {
        out << (t == 0 ? "smooth " : t == 1 ? " -> balance " : ", ");
        for (std::size_t k = 0; k < rm.sets[s][t].size(); ++k)
          out << (k ? ", " : "") << name_of(model, rm.sets[s][t][k]);
      }
    }
    out << "\n";
  }
}

} // namespace

int explain(const std::string& config_path, const std::vector<Modifier>& modifiers,
            const index::Index& model, bool json, std::ostream& out, std::ostream& err) {
  Json all = {{"modifiers", Json::array()}};
  int exit_code = 0;
  if (modifiers.empty())
    err << config_path << ": holds no llm-compressor modifier opscope can read\n";
  for (const Modifier& m : modifiers) {
    Resolution r = resolve(m, model);
    std::string where = config_path + ":" + std::to_string(m.anchor.start.line + 1);
    if (r.error) {
      int line = (r.error_range ? *r.error_range : m.anchor).start.line + 1;
      err << config_path << ":" << line << ": error: " << *r.error << " [" << r.error_code << "]\n"
          << where << ": llm-compressor refuses this " << m.class_name
          << " on this model, so it quantizes nothing; fix the error above\n";
      exit_code = 1;
    }
    if (json)
      all["modifiers"].push_back(modifier_json(m, r, model));
    else
      modifier_text(where, m, r, model, out);
  }
  if (json)
    out << all.dump(2) << "\n";
  return exit_code;
}

} // namespace opscope::dialects::llmcompressor
