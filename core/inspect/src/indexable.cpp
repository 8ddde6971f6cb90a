#include "opscope/index/validate.h"
#include "opscope/inspect/archive.h"

namespace opscope::inspect {

void require_indexable(const index::Index& built, const std::string& origin) {
  if (auto problem = index::find_structure_problem(built))
    throw ArchiveError(origin + ": this model's structure cannot be indexed (" + *problem + ")");
}

} // namespace opscope::inspect
