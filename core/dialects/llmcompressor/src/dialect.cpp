#include "opscope/dialects/llmcompressor/dialect.h"

#include "explain.h"
#include "opscope/config/python_calls.h"
#include "opscope/dialects/llmcompressor/llmcompressor.h"

#include <re2/re2.h>

#include <cctype>
#include <filesystem>

namespace opscope::dialects::llmcompressor {
namespace {

using config::Node;

// The model a oneshot script names: `oneshot(model="id")`, else the first `from_pretrained`
// of a string that is not a tokenizer's or processor's, else a `MODEL_ID = "id"` the script
// assigns (what llm-compressor's examples write, passing the loaded model to oneshot).
std::optional<std::string> script_model(const std::string& text) {
  config::PythonCalls calls = config::read_python_calls(text, {"oneshot"});
  for (const config::PythonCall& call : calls.calls)
    for (const config::Entry& e : call.arguments->entries)
      if (e.key == "model" && e.value && e.value->kind == Node::Kind::Scalar &&
          e.value->type == config::ScalarType::Str)
        return e.value->scalar;
  for (const config::PretrainedName& p : calls.pretrained)
    if (p.owner.find("Tokenizer") == std::string::npos &&
        p.owner.find("Processor") == std::string::npos &&
        p.owner.find("Config") == std::string::npos)
      return p.text;
  static const RE2 assigned(
      R"((?im)^(?:model_id|model_name|model_path|model_name_or_path|base_model)[ \t]*=[ \t]*["']([^"'\n]+)["'])");
  std::string id;
  if (RE2::PartialMatch(text, assigned, &id))
    return id;
  return std::nullopt;
}

// A checkpoint's config.json holds its own architecture: the model is the folder it is in
// (exported weightless through hf:), absolute so messages name it.
std::string checkpoint_folder(const std::string& path) {
  std::error_code ec;
  std::filesystem::path folder = std::filesystem::absolute(path, ec).parent_path();
  return ec || folder.empty() ? "." : folder.string();
}

// A file's modifiers (a script or a recipe may hold several), read once per revision.
class LlmCompressorDocument final : public DialectDocument {
public:
  LlmCompressorDocument(std::vector<Modifier> modifiers, std::optional<std::string> model,
                        std::string text)
      : modifiers_(std::move(modifiers)), model_(std::move(model)), text_(std::move(text)) {}

  bool empty() const override { return modifiers_.empty(); }
  std::optional<std::string> model() const override { return model_; }

  std::vector<Finding> diagnose(const index::Index& model) const override {
    std::vector<Finding> out;
    for (const Modifier& modifier : modifiers_) {
      std::vector<Finding> found =
          llmcompressor::diagnose(modifier, resolve(modifier, model), model);
      out.insert(out.end(), std::make_move_iterator(found.begin()),
                 std::make_move_iterator(found.end()));
    }
    return out;
  }

  std::optional<HoverText> hover(const index::Index& model,
                                 config::Position cursor) const override {
    const Modifier* modifier = modifier_at(cursor);
    if (!modifier)
      return std::nullopt;
    return llmcompressor::hover(*modifier, resolve(*modifier, model), model, cursor);
  }

  // Only the names that hold what is typed before the cursor (its characters in order, any
  // case, as editors filter): the engine keeps the first 100, and a model has thousands, so
  // unfiltered the full names after the classes and patterns would never be offered.
  std::vector<Suggestion> complete(const index::Index& model,
                                   config::Position cursor) const override {
    const Modifier* modifier = modifier_at(cursor);
    if (!modifier)
      return {};
    std::vector<Suggestion> found = llmcompressor::complete(*modifier, model, cursor);
    if (found.empty())
      return found;
    std::string typed = typed_before(found.front().replace, cursor);
    std::erase_if(found, [&](const Suggestion& s) { return !holds_in_order(s.label, typed); });
    return found;
  }

  int explain(const std::string& config_path, const index::Index& model, bool json,
              std::ostream& out, std::ostream& err) const override {
    return llmcompressor::explain(config_path, modifiers_, model, json, out, err);
  }

private:
  // The modifier the cursor is in: the last one starting at or before it, else the first.
  const Modifier* modifier_at(config::Position cursor) const {
    const Modifier* found = nullptr;
    for (const Modifier& modifier : modifiers_)
      if (modifier.anchor.start <= cursor)
        found = &modifier;
    return found ? found : (modifiers_.empty() ? nullptr : &modifiers_.front());
  }

  // The text between the start of the string being typed and the cursor.
  std::string typed_before(const config::Range& replace, config::Position cursor) const {
    if (replace.start.line != cursor.line || cursor.byte_col < replace.start.byte_col)
      return "";
    std::size_t at = 0;
    for (int line = 0; line < cursor.line && at != std::string::npos; ++line)
      if ((at = text_.find('\n', at)) != std::string::npos)
        ++at;
    if (at == std::string::npos)
      return "";
    std::size_t from = at + static_cast<std::size_t>(replace.start.byte_col);
    std::size_t to = at + static_cast<std::size_t>(cursor.byte_col);
    return to <= text_.size() ? text_.substr(from, to - from) : "";
  }

  static bool holds_in_order(const std::string& label, const std::string& typed) {
    std::size_t i = 0;
    for (char c : label)
      if (i < typed.size() && std::tolower(static_cast<unsigned char>(c)) ==
                                  std::tolower(static_cast<unsigned char>(typed[i])))
        ++i;
    return i == typed.size();
  }

  std::vector<Modifier> modifiers_;
  std::optional<std::string> model_;
  std::string text_; // for what is typed before the cursor
};

class LlmCompressorDialect final : public Dialect {
public:
  std::string_view name() const override { return "llmcompressor"; }
  // Recipes (staged or flat YAML), scripts calling the modifiers, and compressed-tensors
  // checkpoints (config.json with quantization_config.config_groups). Not PEFT's files (no
  // modifier, no config_groups) nor coreai-opt's: its `quantization_config` has no
  // config_groups, and the text search turns them away before any parse.
  bool recognises(const std::string& path, const std::string& text) const override {
    bool worth_reading = text.find("config_groups") != std::string::npos;
    for (const std::string& c : modifier_classes())
      worth_reading = worth_reading || text.find(c) != std::string::npos;
    return worth_reading && looks_like_llmcompressor(path, text);
  }
  std::shared_ptr<const DialectDocument> read(const std::string& path,
                                              const std::string& text) const override {
    std::vector<Modifier> modifiers = read_llmcompressor_configs(path, text);
    std::optional<std::string> model;
    if (!modifiers.empty() && modifiers.front().source == Source::CheckpointJson)
      model = checkpoint_folder(path);
    else if (!modifiers.empty() && modifiers.front().source == Source::PythonCall)
      model = script_model(text);
    // A recipe YAML names no model: opscope.yaml or the editor setting does.
    return std::make_shared<const LlmCompressorDocument>(std::move(modifiers), std::move(model),
                                                         text);
  }
};

} // namespace

const Dialect& dialect() {
  static const LlmCompressorDialect the_dialect;
  return the_dialect;
}

} // namespace opscope::dialects::llmcompressor
