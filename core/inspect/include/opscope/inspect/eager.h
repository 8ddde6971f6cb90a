// Eager mode: coreai-opt's eager op names (`linear1.linear`, `submodule_a.add_1`).
//
// They cannot be derived from the exported graph (export drops calls such as
// `x.size()` or `x.contiguous()` that eager mode counts, and eager edges follow
// tensor identity), so the export helper runs the model once and stores what
// coreai-opt's eager inspector would see as `<archive>/extra/opscope_eager.json`
// (python/opscope_export/eager_trace.py). This builds the Index from that record
// and applies the eager compressor tables. See docs/EAGER_MODE.md.
#pragma once

#include "opscope/index/index.h"
#include "opscope/inspect/archive.h"
#include "opscope/inspect/eager_mode.h" // declares build_eager_index(const Archive&)

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace opscope::inspect {

// File name of the record under the archive's `extra/` folder.
inline constexpr std::string_view kEagerRecordName = "opscope_eager.json";

// The record is missing, unreadable, or from an unknown format version. The message
// names the archive and says what to do (usually: re-export with opscope). An
// ArchiveError, so the worker reports it like any other unusable archive.
class EagerRecordError : public ArchiveError {
public:
  using ArchiveError::ArchiveError;
};

// build_eager_index(archive) (eager_mode.h) reads `extra/opscope_eager.json` and builds
// from it, with the archive's provenance; it throws EagerRecordError when the record is
// absent or unusable.

// Builds the eager index from the record's JSON text. `origin` names the archive in
// error messages. Provenance other than torch_version is left for the caller.
index::Index build_eager_index_from_record(const std::string& record_json,
                                           const std::string& origin);

// The type under which compressor `c`'s eager registry files a torch function
// (by torch.overrides.resolve_name, e.g. "torch.nn.functional.linear" -> "linear"),
// or nothing when `c` does not register it: the compressor table's.
using coreai::eager_registered_type;

} // namespace opscope::inspect
