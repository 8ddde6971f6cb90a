#include "opscope/dialects/coreai/dialect.h"

#include "document_impl.h"
#include "schema_source.h"

#include "opscope/coreai/config/local_edit.h"

#include <utility>

namespace opscope::dialects::coreai {
namespace {

// One open coreai-opt config: its last parse, patched in place while typing inside a key
// (a 10 MB config is read once per edit otherwise), and the patterns its checks hold compiled.
class Session final : public DialectSession {
public:
  std::shared_ptr<const DialectDocument> read(const Revision& revision, ReadHost& host) override {
    if (revision.number == 0) // read from disk: nothing is kept
      return make_document({std::make_shared<const config::ConfigDocument>(parse(revision)),
                            revision.named_as_config, std::make_shared<Decisions>(false), nullptr});
    bool patched = false;
    if (config_) {
      // In place unless a document handed out earlier may still be read.
      if (config_.use_count() == 1 && !host.parses_in_use()) {
        patched = config::patch_after_local_edit(*config_, revision.text);
      } else if (auto copy = config::reread_after_local_edit(*config_, revision.text)) {
        host.release(
            std::exchange(config_, std::make_shared<config::ConfigDocument>(std::move(*copy))));
        patched = true;
      }
    }
    if (!patched)
      host.release(
          std::exchange(config_, std::make_shared<config::ConfigDocument>(parse(revision))));
    // A new text resolves anew; the last resolution is freed off the request thread.
    host.release(std::exchange(decisions_, std::make_shared<Decisions>(true)));
    return make_document({config_, revision.named_as_config, decisions_, held_});
  }

  void shed(ReadHost& host) override {
    host.release(std::exchange(config_, nullptr));
    host.release(std::exchange(decisions_, nullptr));
  }

private:
  static config::ConfigDocument parse(const Revision& revision) {
    return config::read_config(revision.text, config::guess_format(revision.path, revision.text));
  }

  std::shared_ptr<config::ConfigDocument> config_;
  std::shared_ptr<Decisions> decisions_;
  std::shared_ptr<HeldPatterns> held_ = std::make_shared<HeldPatterns>();
};

class CoreaiDialect final : public Dialect {
public:
  std::string_view name() const override { return "coreai-opt"; }
  // The reader of last resort: every file the dialects before it turned away.
  bool recognises(const std::string&, const std::string&) const override { return true; }
  std::shared_ptr<const DialectDocument> read(const std::string& path,
                                              const std::string& text) const override {
    ReadHost host;
    return Session().read({path, text, 0}, host);
  }
  std::unique_ptr<DialectSession> open() const override { return std::make_unique<Session>(); }

  // The dump of the project's coreai-opt version, else the built-in copy. The dump runs the
  // project's interpreter: only where its model's export may run too.
  std::shared_ptr<const void> schema_for(const ProjectView& project) const override {
    SchemaChoice choice = choose_schema(project.python);
    if (choice.missing_version && project.may_run_python && project.make_schema_dump) {
      project.make_schema_dump(schema_dump(project.python, *choice.missing_version));
      choice = choose_schema(project.python); // made in-line by `check`
    }
    return choice.schema;
  }
};

} // namespace

const Dialect& dialect() {
  static const CoreaiDialect instance;
  return instance;
}

} // namespace opscope::dialects::coreai
