// What a test reads of a resolution: op name -> the key of the entry deciding it ("" for
// coreai-opt's default global config), for a YAML config on a hand-built index.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/resolve/resolve.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace opscope::resolve::testing {

inline std::map<std::string, std::string>
deciding_keys(const index::Index& index, const std::string& yaml, Resolution* out = nullptr) {
  config::ConfigDocument doc = config::read_config(yaml, config::Format::Yaml);
  EXPECT_TRUE(doc.problems.empty());
  Resolution r = resolve_quantizer(doc, index);
  std::map<std::string, std::string> decided;
  for (const OpDecision& d : r.ops) {
    std::vector<std::string> path = decider_path(doc, d.decider);
    decided[index.ops[static_cast<std::size_t>(d.op)].name] = path.empty() ? "" : path.back();
  }
  if (out)
    *out = std::move(r);
  return decided;
}

} // namespace opscope::resolve::testing
