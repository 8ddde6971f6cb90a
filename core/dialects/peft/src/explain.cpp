#include "explain.h"
#include "opscope/dialects/columns.h"
#include "opscope/dialects/written.h"

#include "opscope/dialects/peft/resolve.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace opscope::dialects::peft {

namespace {

// "1,234,567", as PEFT prints counts.
std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

// The entry that targets a wrapped module, as written.
std::string entry_of(const PeftConfig& config, const Resolution& resolution, const Wrapped& w) {
  if (w.target_entry >= 0 && static_cast<std::size_t>(w.target_entry) < config.target_names.size())
    return config.target_names[static_cast<std::size_t>(w.target_entry)].text;
  if (config.all_linear)
    return config.all_linear->text;
  if (config.target_regex)
    return config.target_regex->text;
  if (resolution.default_regex)
    return *resolution.default_regex + " (PEFT's default)";
  return "PEFT's default for this architecture";
}

std::string trainable_line(const Resolution& r) {
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.4f",
                r.all_parameters ? 100.0 * static_cast<double>(r.trainable_parameters) /
                                       static_cast<double>(r.all_parameters)
                                 : 0.0);
  return "trainable params: " + grouped(r.trainable_parameters) +
         " || all params: " + grouped(r.all_parameters) + " || trainable%: " + percent;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

} // namespace

int explain(const std::string& config_path, const std::vector<PeftConfig>& configs,
            const index::Index& model, bool json, std::ostream& out, std::ostream& err) {
  const std::vector<index::ModuleObject>& modules = model.named_modules();
  nlohmann::ordered_json all = {{"configs", nlohmann::ordered_json::array()}};
  int exit_code = 0;
  if (configs.empty())
    err << config_path << ": holds no PEFT config opscope can read\n";
  for (const PeftConfig& config : configs) {
    Resolution r = resolve(config, model);
    std::string where = config_path + ":" + std::to_string(config.anchor.start.line + 1);
    if (r.error) {
      int line = (r.error_range ? *r.error_range : config.anchor).start.line + 1;
      err << config_path << ":" << line << ": error: " << *r.error << " [" << r.error_code << "]\n"
          << where << ": get_peft_model raises on this model, so this " << config.class_name
          << " wraps nothing; fix the error above\n";
      exit_code = 1;
    }
    if (json) {
      nlohmann::ordered_json wrapped = nlohmann::ordered_json::array();
      for (const Wrapped& w : r.wrapped) {
        const index::ModuleObject& m = modules[static_cast<std::size_t>(w.module)];
        wrapped.push_back({{"module", m.name},
                           {"type", m.type},
                           {"entry", entry_of(config, r, w)},
                           {"r", w.rank},
                           {"alpha", w.alpha},
                           {"trainable_parameters", w.trainable_parameters}});
      }
      nlohmann::ordered_json saved = nlohmann::ordered_json::array();
      for (int s : r.saved)
        saved.push_back(modules[static_cast<std::size_t>(s)].name);
      nlohmann::ordered_json one = {{"class", config.class_name},
                                    {"line", config.anchor.start.line + 1},
                                    {"wrapped", std::move(wrapped)},
                                    {"modules_to_save", std::move(saved)},
                                    {"wrapped_parameters", r.wrapped_parameters}};
      if (r.counted) {
        one["trainable_parameters"] = r.trainable_parameters;
        one["all_parameters"] = r.all_parameters;
      }
      one["error"] = r.error ? nlohmann::ordered_json(*r.error) : nlohmann::ordered_json();
      all["configs"].push_back(std::move(one));
      continue;
    }
    out << where << ": " << config.class_name << " wraps " << r.wrapped.size() << " of "
        << modules.size() << " modules";
    if (r.counted)
      out << "; " << trainable_line(r);
    out << "\n";
    std::size_t name_width = 6, type_width = 4, entry_width = 5;
    for (const Wrapped& w : r.wrapped) {
      const index::ModuleObject& m = modules[static_cast<std::size_t>(w.module)];
      name_width = std::max(name_width, m.name.size());
      type_width = std::max(type_width, last_part(m.type).size());
      entry_width = std::max(entry_width, entry_of(config, r, w).size());
    }
    if (!r.wrapped.empty())
      out << "  " << padded("module", name_width) << "  " << padded("type", type_width) << "  "
          << padded("entry", entry_width) << "  " << padded("r", 4) << "  " << padded("alpha", 6)
          << "  trainable\n";
    for (const Wrapped& w : r.wrapped) {
      const index::ModuleObject& m = modules[static_cast<std::size_t>(w.module)];
      out << "  " << padded(m.name, name_width) << "  " << padded(last_part(m.type), type_width)
          << "  " << padded(entry_of(config, r, w), entry_width) << "  "
          << padded(std::to_string(w.rank), 4) << "  " << padded(number(w.alpha), 6) << "  "
          << grouped(w.trainable_parameters) << "\n";
    }
    for (const std::string& p : r.wrapped_parameters)
      out << "  parameter " << p << " (target_parameters)\n";
    for (int s : r.saved)
      out << "  " << modules[static_cast<std::size_t>(s)].name
          << "  copied and trained in full (modules_to_save)\n";
  }
  if (json)
    out << all.dump(2) << "\n";
  return exit_code;
}

} // namespace opscope::dialects::peft
