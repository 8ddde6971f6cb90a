// `opscope explain` of a dialect's document on a model already in memory, as the command asks
// it (a host with no process to run: the dialects of module names need none).
#pragma once

#include "opscope/dialects/dialect.h"

#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

namespace opscope::dialects::test_hosts {

class NoProcessHost final : public ExplainHost {
public:
  std::string model() const override { return "model.pt2"; }
  std::string weights() const override { return ""; }
  index::Index index_in(index::Mode) const override {
    throw std::runtime_error("this test loads no other index");
  }
  const WeightsWorker& weights_worker() const override {
    throw std::runtime_error("this test runs no worker");
  }
};

inline int explain_on(const DialectDocument& document, const std::string& path,
                      const index::Index& model, bool json, std::ostream& out, std::ostream& err) {
  Context context;
  context.index = std::make_shared<const index::Index>(model);
  const NoProcessHost host;
  return document.explain(ExplainRequest{
      path, context, json ? ExplainFormat::Json : ExplainFormat::Text, "", false, out, err, host});
}

} // namespace opscope::dialects::test_hosts
