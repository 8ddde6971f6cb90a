// The language server's side of the trust model (engine/trust): whether a config's model may
// run, what the config's `untrusted-project` diagnostic says, and when to ask the user
// (window/showMessageRequest, once per content per session). Knows nothing of the wire.
#pragma once

#include "opscope/project/project.h"
#include "opscope/trust/consent.h"
#include "opscope/trust/store.h"

#include <set>
#include <string>

namespace opscope::lsp {

inline constexpr const char* kTrustAndExport = "Trust and export";
inline constexpr const char* kNotNow = "Not now";

class TrustGate {
public:
  explicit TrustGate(trust::Store store) : store_(std::move(store)) {}

  // initializationOptions.workspaceTrusted: false means the editor's workspace is not trusted
  // (VS Code restarts the server when that changes): never ask, never run.
  void set_workspace_trusted(bool trusted) { workspace_untrusted_ = !trusted; }
  bool workspace_untrusted() const { return workspace_untrusted_; }

  // May the model run now?
  bool allows(const trust::Need& need) const {
    return !need.needed() || (!workspace_untrusted_ && trust::is_trusted(need, store_, session_));
  }
  // The diagnostic on the config's first line while it may not.
  std::string diagnostic(const trust::Need& need) const;
  // True the first time this exact content is seen (then the caller asks); never when the
  // workspace is untrusted.
  bool first_time(const trust::Need& need);
  // "opscope: /w/opscope.yaml wants to run model.py:build with .venv/bin/python. Trust this
  // project?"
  std::string question(const trust::Need& need) const;
  // Records consent for every subject. On a store that cannot be written the consent holds for
  // this session only and the returned warning says why ("" when it was saved).
  std::string allow(const trust::Need& need);
  const trust::Store& store() const { return store_; }

private:
  trust::Store store_;
  bool workspace_untrusted_ = false;
  std::set<std::string> session_; // consent that could not be saved
  std::set<std::string> asked_;   // session tokens already asked about
};

} // namespace opscope::lsp
