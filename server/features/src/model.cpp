#include "opscope/features/model.h"

namespace opscope::features {

index::Compressor compressor_for(const config::ConfigDocument& document,
                                 index::Compressor fallback) {
  switch (document.root) {
  case config::Root::Quantization:
    return index::Compressor::Quantizer;
  case config::Root::KMeansPalettization:
    return index::Compressor::KMeansPalettizer;
  case config::Root::MagnitudePruning:
    return index::Compressor::MagnitudePruner;
  case config::Root::None:
    return fallback;
  }
  return fallback;
}

} // namespace opscope::features
