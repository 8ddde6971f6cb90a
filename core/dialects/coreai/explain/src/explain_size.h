// The `size` part of `opscope explain`: the projected size (opscope/resolve/size.h) on the
// index of the mode coreai-opt applies the config in: the eager one for bits_per_weight() after
// an eager prepare(), the graph one for the graph Quantizer's weight fake-quants.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/dialects/dialect.h"
#include "opscope/index/index.h"
#include "opscope/resolve/resolve.h"

#include <nlohmann/json.hpp>

#include <string>

namespace opscope::coreai_explain {

// `shown` is the index explain already loaded; the host loads the eager one when the config is
// applied in eager mode (the palettizer always, the Quantizer with `execution_mode: eager`).
// Never throws: a model that cannot be loaded in eager mode gives {"unavailable": why}.
// `resolution`: explain's resolve_quantizer() of `shown`, reused when `shown` is the one sized.
nlohmann::ordered_json explain_size(const config::ConfigDocument& document,
                                    const index::Index& shown, const dialects::ExplainHost& host,
                                    const resolve::Resolution* resolution = nullptr);

// One line for the table: "projected size: 32.00 -> 7.07 bits per weight (...)".
std::string explain_size_line(const nlohmann::ordered_json& size);

} // namespace opscope::coreai_explain
