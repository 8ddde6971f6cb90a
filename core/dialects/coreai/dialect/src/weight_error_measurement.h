// coreai-opt's measurement on real weights (DialectDocument::measurement): the per-layer weight
// error of the weights a Quantizer, pruner or palettizer config compresses, which its code lens
// and hovers show (features/weight_error.h). Equal requests are measured once: an edit that
// leaves every weight's spec as it was is answered from the kept report.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/dialects/dialect.h"
#include "opscope/index/index.h"
#include "opscope/index/query.h"
#include "opscope/resolve/resolve.h"

#include <memory>
#include <string>

namespace opscope::dialects::coreai {

struct WeightErrorSubject {
  std::string weights; // an archive or a checkpoint (its index file or target: says it has none)
  std::shared_ptr<const config::ConfigDocument> config;
  std::shared_ptr<const index::Index> index;
  std::shared_ptr<const index::QueryEngine> queries;
  std::shared_ptr<const resolve::SharedResolution> decisions; // this revision's
};

std::unique_ptr<Measurement> weight_error_measurement(WeightErrorSubject subject);

} // namespace opscope::dialects::coreai
