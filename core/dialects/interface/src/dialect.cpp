#include "opscope/dialects/dialect.h"

#include <filesystem>
#include <unistd.h>

namespace opscope::dialects {
namespace {

// A dialect that keeps nothing between revisions: each is read whole.
class StatelessSession final : public DialectSession {
public:
  explicit StatelessSession(const Dialect& dialect) : dialect_(dialect) {}
  std::shared_ptr<const DialectDocument> read(const Revision& revision, ReadHost&) override {
    return dialect_.read(revision.path, revision.text);
  }

private:
  const Dialect& dialect_;
};

} // namespace

std::unique_ptr<DialectSession> Dialect::open() const {
  return std::make_unique<StatelessSession>(*this);
}

std::string SchemaDump::temporary() const {
  std::filesystem::path final_path(path);
  return (final_path.parent_path() /
          ("." + final_path.filename().string() + "." + std::to_string(::getpid()) + ".partial"))
      .string();
}

std::vector<Diagnostic> DialectDocument::diagnostics(const Context& context) const {
  std::vector<Diagnostic> out;
  for (config::SyntaxProblem& p : syntax_problems())
    out.push_back({p.range, Severity::Error, std::move(p.code), std::move(p.message), {}});
  if (!context.index)
    return out;
  std::vector<Diagnostic> found = diagnose(*context.index);
  out.insert(out.end(), std::make_move_iterator(found.begin()),
             std::make_move_iterator(found.end()));
  return out;
}

std::optional<Hover> DialectDocument::hover_at(const Context& context,
                                               config::Position cursor) const {
  if (!context.index)
    return std::nullopt;
  return hover(*context.index, cursor);
}

CompletionList DialectDocument::completion(const Context& context, config::Position cursor,
                                           const CompletionOptions& options) const {
  CompletionList out;
  if (empty())
    return out;
  if (!context.index) {
    out.is_incomplete = true; // names come once the model has loaded
    return out;
  }
  out.items = complete(*context.index, cursor, options.max_items);
  // The hook offers only the names that hold what is typed: the editor must ask again as the
  // user types on (or deletes), not filter this list itself.
  out.is_incomplete = true;
  if (out.items.size() > options.max_items)
    out.items.resize(options.max_items);
  return out;
}

} // namespace opscope::dialects
