// The llm-compressor dialect: everything opscope knows about llm-compressor recipes and
// compressed-tensors checkpoints, in one folder. Matching is compressed-tensors' own
// (compressed_tensors/utils/match.py: exact name, `re:` by re.match, class names over the MRO;
// ignore before targets), the presets are its PRESET_SCHEMES, the mappings are resolved as
// SmoothQuant and AWQ resolve them. No LibTorch, no LSP types: positions are config::Range.
//   config.h    reading: read_llmcompressor_configs, looks_like_llmcompressor
//   schemes.h   presets and QuantizationArgs' validation
//   resolve.h   matching: resolve (the scheme per module, ignored modules, mappings, errors)
//   features.h  diagnose, hover, complete, explain_module
//   size.h      the saved checkpoint's tensors and size: project_checkpoint
//   linearize.h the model as oneshot sees it: fused MoE experts split (linearize_moe)
#pragma once

#include "opscope/dialects/llmcompressor/config.h"
#include "opscope/dialects/llmcompressor/features.h"
#include "opscope/dialects/llmcompressor/linearize.h"
#include "opscope/dialects/llmcompressor/resolve.h"
#include "opscope/dialects/llmcompressor/schemes.h"
#include "opscope/dialects/llmcompressor/size.h"
