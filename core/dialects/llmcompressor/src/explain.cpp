#include "explain.h"
#include "not_read.h"
#include "opscope/dialects/columns.h"
#include "opscope/dialects/written.h"

#include "opscope/dialects/llmcompressor/features.h"
#include "opscope/dialects/llmcompressor/resolve.h"
#include "opscope/dialects/llmcompressor/size.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
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

// The quantized modules this modifier decides in the checkpoint (a later modifier's scheme wins).
std::map<int, const CompressedModule*> decided_by(const ProjectedCheckpoint& size, int modifier) {
  std::map<int, const CompressedModule*> out;
  for (const ModuleProjection& p : size.modules)
    if (p.modifier == modifier)
      out.emplace(p.module, &p.compressed);
  return out;
}

Json module_size_json(const CompressedModule& c) {
  Json tensors = Json::array();
  for (const index::Parameter& t : c.tensors)
    tensors.push_back({{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}});
  double bits =
      c.weights ? 8.0 * static_cast<double>(c.bytes_after) / static_cast<double>(c.weights) : 0.0;
  return {{"format", c.format},
          {"bytes", {{"before", c.bytes_before}, {"after", c.bytes_after}}},
          {"bits_per_weight", bits},
          {"tensors", std::move(tensors)}};
}

// As coreai-opt's explain --json "size" (bits_per_weight, bits, bytes, weights, modules: each
// quantized module's bits per weight), with the checkpoint's format.
Json size_json(const ProjectedCheckpoint& size, const index::Index& model) {
  if (!size.unavailable.empty())
    return {{"unavailable", size.unavailable}};
  Json modules = Json::object();
  for (const ModuleProjection& p : size.modules)
    modules[name_of(model, p.module)] = p.compressed.weights
                                            ? 8.0 * static_cast<double>(p.compressed.bytes_after) /
                                                  static_cast<double>(p.compressed.weights)
                                            : 0.0;
  return {{"bits_per_weight", {{"before", size.bpw_before}, {"after", size.bpw_after}}},
          {"bits", {{"before", size.bytes_before * 8}, {"after", size.bytes_after * 8}}},
          {"bytes", {{"before", size.bytes_before}, {"after", size.bytes_after}}},
          {"weights", size.weights},
          {"format", size.format},
          {"caveat", size.caveat.empty() ? Json(nullptr) : Json(size.caveat)},
          {"modules", std::move(modules)}};
}

Json modifier_json(const Modifier& m, const Resolution& r, const index::Index& model,
                   const std::map<int, const CompressedModule*>& sized) {
  Json groups = Json::array();
  for (const Group& g : r.groups)
    groups.push_back({{"name", g.name},
                      {"preset", g.preset ? Json(*g.preset) : Json(nullptr)},
                      {"scheme", scheme_json(g.scheme)}});
  Json modules = Json::array();
  for (const Applied& a : r.applied) {
    const Group& g = r.groups[static_cast<std::size_t>(a.group)];
    Json one = {{"module", name_of(model, a.module)},
                {"type", model.named_modules()[static_cast<std::size_t>(a.module)].type},
                {"group", g.name},
                {"target", r.targets[static_cast<std::size_t>(a.target)].text.text},
                {"attention", a.attention},
                {"scheme", scheme_json(g.scheme)}};
    if (auto at = sized.find(a.module); at != sized.end())
      one["size"] = module_size_json(*at->second);
    modules.push_back(std::move(one));
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
                   const index::Index& model, const std::map<int, const CompressedModule*>& sized,
                   std::ostream& out) {
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
  std::size_t name_width = 6, type_width = 4;
  for (int module : listed) {
    name_width = std::max(name_width, name_of(model, module).size());
    type_width =
        std::max(type_width, last_part(modules[static_cast<std::size_t>(module)].type).size());
  }
  std::vector<std::string> schemes;
  std::size_t scheme_width = 6;
  for (int module : listed) {
    schemes.push_back(explain_module(m, r, model, module));
    scheme_width = std::max(scheme_width, schemes.back().size());
  }
  if (!listed.empty())
    out << "  " << padded("module", name_width) << "  " << padded("type", type_width) << "  "
        << (sized.empty() ? "scheme" : padded("scheme", scheme_width) + "  saved bytes") << "\n";
  for (std::size_t i = 0; i < listed.size(); ++i) {
    int module = listed[i];
    out << "  " << padded(name_of(model, module), name_width) << "  "
        << padded(last_part(modules[static_cast<std::size_t>(module)].type), type_width) << "  ";
    auto at = sized.find(module);
    if (at == sized.end()) {
      out << schemes[i] << "\n";
      continue;
    }
    const CompressedModule& c = *at->second;
    out << padded(schemes[i], scheme_width) << "  " << c.bytes_before << " -> " << c.bytes_after
        << " (" << c.format << ")\n";
  }
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

int explain(const std::string& config_path, const std::vector<Modifier>& written,
            const index::Index& model, bool json, std::ostream& out, std::ostream& err) {
  Json all = {{"modifiers", Json::array()}, {"not_read", Json::array()}};
  int exit_code = 0;
  if (written.empty())
    err << config_path << ": holds no llm-compressor modifier opscope can read\n";
  // What llm-compressor applies: a modifier it never reads quantizes nothing and sizes nothing.
  std::vector<Modifier> modifiers;
  for (const Modifier& m : written)
    if (m.applied)
      modifiers.push_back(m);
  for (const Diagnostic& f : not_read(written)) {
    err << config_path << ":" << f.range.start.line + 1 << ": "
        << (f.severity == Severity::Error ? "error" : "warning") << ": " << f.message << " ["
        << f.code << "]\n";
  }
  for (const Modifier& m : written)
    if (m.applied)
      continue;
    else if (json)
      all["not_read"].push_back(
          {{"class", m.class_name}, {"stage", m.stage}, {"line", m.anchor.start.line + 1}});
    else
      out << config_path << ":" << m.anchor.start.line + 1 << ": " << m.class_name
          << (m.stage.empty() ? "" : " (" + m.stage + ")")
          << " is not read by llm-compressor: it applies nothing\n";
  std::vector<Resolution> resolutions;
  for (const Modifier& m : modifiers)
    resolutions.push_back(resolve(m, model));
  ProjectedCheckpoint size = project_checkpoint(modifiers, resolutions, model);
  bool sizes = std::any_of(written.begin(), written.end(),
                           [](const Modifier& m) { return quantizes(m.class_name); });
  for (std::size_t i = 0; i < modifiers.size(); ++i) {
    const Modifier& m = modifiers[i];
    const Resolution& r = resolutions[i];
    std::map<int, const CompressedModule*> sized = decided_by(size, static_cast<int>(i));
    std::string where = config_path + ":" + std::to_string(m.anchor.start.line + 1);
    if (r.error) {
      int line = (r.error_range ? *r.error_range : m.anchor).start.line + 1;
      err << config_path << ":" << line << ": error: " << *r.error << " [" << r.error_code << "]\n"
          << where << ": llm-compressor refuses this " << m.class_name
          << " on this model, so it quantizes nothing; fix the error above\n";
      exit_code = 1;
    }
    if (json)
      all["modifiers"].push_back(modifier_json(m, r, model, sized));
    else
      modifier_text(where, m, r, model, sized, out);
  }
  if (json && sizes)
    all["size"] = size_json(size, model);
  if (json)
    out << all.dump(2) << "\n";
  else if (sizes)
    out << size_line(size) << "\n";
  return exit_code;
}

} // namespace opscope::dialects::llmcompressor
