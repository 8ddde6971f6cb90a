// The command line's side of the workspace, shared by `opscope check` and `opscope explain`:
// models load in-line, once per run; consent comes from the trust store or --trust, and the
// untrusted diagnostic says how to give it on the command line.
#pragma once

#include "opscope/cli/args.h"
#include "opscope/model/model_source.h"
#include "opscope/project/project.h"
#include "opscope/trust/store.h"
#include "opscope/workspace/workspace.h"

#include <map>
#include <set>
#include <string>

namespace opscope::check {

// The command line's model flags (--model, --input, --python, --mode, --with-weights,
// --weightless, --hf-class, --compressor), as overrides of the project file: the editor settings'
// role.
project::ModelSettings command_line_overrides(const cli::ParsedArgs& args);

// How opscope::model loads a resolved model: the spec's fields over the command line's
// --quiet / --no-cache.
model::Settings load_settings(const project::ModelSpec& spec, const cli::ParsedArgs& args);

// What opscope::model loads for a resolved model: the Python target, else the file.
const std::string& model_source(const project::ModelSpec& spec);

class CheckHost : public workspace::Host {
public:
  explicit CheckHost(const cli::ParsedArgs& args) : args_(args) {}

  const workspace::Model* ensure(const project::ModelSpec& spec) override;
  bool allows(const trust::Need& need) override;
  std::string untrusted_message(const trust::Need& need) const override;
  // In-line, once per interpreter and version: the configs after it use the dump too.
  void make_schema_dump(const workspace::SchemaDump& dump) override;

private:
  const cli::ParsedArgs& args_;
  trust::Store store_{trust::Store::default_file()};
  std::map<std::string, workspace::Model> loaded_; // by ModelSpec::key()
  std::set<std::string> dumped_;                   // by SchemaDump::key()
};

} // namespace opscope::check
