#include "opscope/dialects/llmcompressor/dialect.h"

#include "explain.h"
#include "matching.h"
#include "not_read.h"
#include "opscope/config/python_calls.h"
#include "opscope/dialects/llmcompressor/llmcompressor.h"
#include "opscope/dialects/per_model.h"
#include "opscope/dialects/text_search.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string_view>

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
  if (const config::PretrainedName* loaded = config::loaded_model(calls))
    return loaded->text;
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

// What the dialect keeps per model across revisions: every name completion offers, and what
// each entry text matched.
using Candidates = PerModel<std::vector<CompletionItem>>;
using Matches = PerModel<detail::EntryMatches>;
// The model as oneshot sees it (linearize.h: fused MoE experts split into Linear layers), made
// once per model; empty where that is the model itself (no copy).
using Views = PerModel<std::optional<index::Index>>;

// A model's view, kept alive while a request uses it.
class Seen {
public:
  Seen(const Views& views, const index::Index& model)
      : kept_(views.get(model,
                        [&]() -> std::optional<index::Index> {
                          if (!has_linearizable_experts(model))
                            return std::nullopt;
                          return linearize_moe(model);
                        })),
        model_(*kept_ ? &**kept_ : &model) {}
  const index::Index& operator*() const { return *model_; }

private:
  std::shared_ptr<const std::optional<index::Index>> kept_;
  const index::Index* model_;
};

// A file's modifiers (a script or a recipe may hold several), read once per revision.
class LlmCompressorDocument final : public DialectDocument {
public:
  LlmCompressorDocument(std::vector<Modifier> modifiers,
                        std::vector<config::SyntaxProblem> problems,
                        std::optional<std::string> model, std::string text,
                        std::shared_ptr<const Candidates> candidates,
                        std::shared_ptr<const Matches> matches, std::shared_ptr<const Views> views)
      : modifiers_(std::move(modifiers)), problems_(std::move(problems)), model_(std::move(model)),
        text_(std::move(text)), candidates_(std::move(candidates)), matches_(std::move(matches)),
        views_(std::move(views)) {}

  bool empty() const override { return modifiers_.empty(); }
  std::vector<config::SyntaxProblem> syntax_problems() const override { return problems_; }
  std::optional<std::string> model() const override { return model_; }

  std::vector<Diagnostic> diagnose(const index::Index& loaded) const override {
    Seen seen(*views_, loaded);
    const index::Index& model = *seen;
    std::vector<Diagnostic> out = not_read(modifiers_, text_);
    std::shared_ptr<const std::vector<Resolution>> resolved = resolutions(model);
    for (std::size_t i = 0; i < modifiers_.size(); ++i) {
      std::vector<Diagnostic> found = llmcompressor::diagnose(modifiers_[i], (*resolved)[i], model);
      for (Diagnostic& diagnostic : found)
        for (Fix& fix : diagnostic.fixes)
          fix.edit.range = contents(fix.edit.range);
      out.insert(out.end(), std::make_move_iterator(found.begin()),
                 std::make_move_iterator(found.end()));
    }
    return out;
  }

  std::optional<Hover> hover(const index::Index& loaded, config::Position cursor) const override {
    Seen seen(*views_, loaded);
    const index::Index& model = *seen;
    const Modifier* modifier = modifier_at(cursor);
    if (!modifier)
      return std::nullopt;
    std::shared_ptr<const std::vector<Resolution>> resolved = resolutions(model);
    return llmcompressor::hover(*modifier,
                                (*resolved)[static_cast<std::size_t>(modifier - modifiers_.data())],
                                model, cursor);
  }

  // Only the names that hold what is typed before the cursor (its characters in order, any
  // case, as editors filter): the editor is sent the first `limit`, and a model has thousands, so
  // unfiltered the full names after the classes and patterns would never be offered. The
  // names are the model's, built once per model (a keystroke is a new document).
  std::vector<CompletionItem> complete(const index::Index& loaded, config::Position cursor,
                                       std::size_t limit) const override {
    const Modifier* modifier = modifier_at(cursor);
    const Written* entry = modifier ? entry_at(*modifier, cursor) : nullptr;
    if (!entry)
      return {};
    config::Range replace = contents(between_quotes(*entry));
    std::string typed = typed_before(replace, cursor);
    Seen seen(*views_, loaded);
    const index::Index& model = *seen;
    std::shared_ptr<const std::vector<CompletionItem>> all =
        candidates_->get(model, [&] { return candidates(model); });
    // Only what the editor is sent: a MoE model's per-expert names (25,000 for Qwen3-30B-A3B)
    // past it would be copied to be dropped.
    std::vector<CompletionItem> found;
    for (const CompletionItem& item : *all) {
      if (found.size() >= limit)
        break;
      if (holds_in_order(item.label, typed)) {
        found.push_back(item);
        found.back().edit.range = replace;
      }
    }
    return found;
  }

  int explain(const ExplainRequest& request) const override {
    Seen seen(*views_, *request.context.index);
    return llmcompressor::explain(request.config_path, modifiers_, *seen,
                                  request.format == ExplainFormat::Json, request.out, request.err);
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

  // Every modifier resolved on `model`, once per model: the background check and every hover
  // of this revision share it (resolving a 100-entry list over a 70B model's modules takes
  // milliseconds; a hover must take less than one), each entry matched only when no earlier
  // revision matched its text on this model.
  std::shared_ptr<const std::vector<Resolution>> resolutions(const index::Index& model) const {
    return resolved_.get(model, [&] {
      std::shared_ptr<const detail::EntryMatches> memo = matches_->get(model);
      std::vector<Resolution> made;
      for (const Modifier& modifier : modifiers_)
        made.push_back(resolve(modifier, model, memo.get()));
      return made;
    });
  }

  // Where `line` starts in the text (npos past its end).
  std::size_t line_start(int line) const {
    std::size_t at = 0;
    for (int i = 0; i < line && at != std::string::npos; ++i)
      if ((at = text_.find('\n', at)) != std::string::npos)
        ++at;
    return at;
  }

  // A written string's contents: the features' ranges keep the quotes of a string written with
  // escapes (`"re:.*layers\\.0$"`, whose text is shorter than its range), and an edit there
  // would drop them. Past a Python prefix (r, b, u, f) and the quotes, whatever was written.
  config::Range contents(config::Range r) const {
    std::size_t at = line_start(r.start.line);
    if (r.start.line != r.end.line || at == std::string::npos)
      return r;
    std::string_view line(text_);
    line = line.substr(at, std::min(line.size() - at, static_cast<std::size_t>(r.end.byte_col)));
    auto start = static_cast<std::size_t>(r.start.byte_col);
    auto end = line.size();
    if (start >= end)
      return r;
    std::size_t open = start;
    while (open < end && std::string_view("rRbBuUfF").find(line[open]) != std::string_view::npos)
      ++open;
    if (open >= end || (line[open] != '"' && line[open] != '\'') || line[end - 1] != line[open])
      return r;
    std::size_t quotes = line.substr(open).starts_with(std::string(3, line[open])) &&
                                 end - open >= 6 &&
                                 line.substr(end - 3) == std::string(3, line[open])
                             ? 3
                             : 1;
    if (end - open < 2 * quotes)
      return r;
    r.start.byte_col = static_cast<int>(open + quotes);
    r.end.byte_col = static_cast<int>(end - quotes);
    return r;
  }

  // The text between the start of the string being typed and the cursor.
  std::string typed_before(const config::Range& replace, config::Position cursor) const {
    std::size_t at = line_start(cursor.line);
    if (replace.start.line != cursor.line || cursor.byte_col < replace.start.byte_col ||
        at == std::string::npos)
      return "";
    std::size_t from = at + static_cast<std::size_t>(replace.start.byte_col);
    std::size_t to = at + static_cast<std::size_t>(cursor.byte_col);
    return to <= text_.size() ? text_.substr(from, to - from) : "";
  }

  std::vector<Modifier> modifiers_;
  std::vector<config::SyntaxProblem> problems_;
  std::optional<std::string> model_;
  std::string text_;                             // what is typed, the not-read fixes
  std::shared_ptr<const Candidates> candidates_; // the dialect's
  std::shared_ptr<const Matches> matches_;       // the dialect's
  std::shared_ptr<const Views> views_;           // the dialect's
  PerModel<std::vector<Resolution>> resolved_{1};
};

class LlmCompressorDialect final : public Dialect {
public:
  std::string_view name() const override { return "llmcompressor"; }
  // Recipes (YAML; modifiers outside a stage's group are said to be never applied), scripts calling
  // the modifiers, and compressed-tensors checkpoints (config.json with
  // quantization_config.config_groups). Not PEFT's files (no modifier, no config_groups) nor
  // coreai-opt's: its `quantization_config` has no config_groups, and the text search turns them
  // away before any parse.
  bool recognises(const std::string& path, const std::string& text) const override {
    bool worth_reading = mentions(text, "config_groups");
    for (const std::string& c : modifier_classes())
      worth_reading = worth_reading || mentions(text, c);
    return worth_reading && looks_like_llmcompressor(path, text);
  }
  std::shared_ptr<const DialectDocument> read(const std::string& path,
                                              const std::string& text) const override {
    std::vector<config::SyntaxProblem> problems;
    std::vector<Modifier> modifiers = read_llmcompressor_configs(path, text, &problems);
    std::optional<std::string> model;
    if (!modifiers.empty() && modifiers.front().source == Source::CheckpointJson)
      model = checkpoint_folder(path);
    else if (!modifiers.empty() && modifiers.front().source == Source::PythonCall)
      model = script_model(text);
    // A recipe YAML names no model: opscope.yaml or the editor setting does.
    return std::make_shared<const LlmCompressorDocument>(std::move(modifiers), std::move(problems),
                                                         std::move(model), text, candidates_,
                                                         matches_, views_);
  }

private:
  // Shared with the documents, which may outlive the dialect at exit.
  std::shared_ptr<const Candidates> candidates_ = std::make_shared<const Candidates>();
  std::shared_ptr<const Matches> matches_ = std::make_shared<const Matches>();
  std::shared_ptr<const Views> views_ = std::make_shared<const Views>();
};

} // namespace

const Dialect& dialect() {
  static const LlmCompressorDialect the_dialect;
  return the_dialect;
}

} // namespace opscope::dialects::llmcompressor
