#include "opscope/features/model.h"

namespace opscope::features {

index::Compressor compressor_for(const config::ConfigDocument& document,
                                 index::Compressor fallback) {
  return document.root == config::Compressor::None ? fallback : document.root;
}

} // namespace opscope::features
