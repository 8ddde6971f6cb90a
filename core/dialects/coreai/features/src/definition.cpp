#include "opscope/features/definition.h"

#include "matching.h"
#include "text.h"

#include <set>

namespace opscope::features {

std::vector<SourceLocation> definition(const config::ConfigDocument& document,
                                       config::Position cursor, const Model& model,
                                       std::size_t max_locations) {
  std::vector<SourceLocation> out;
  const config::PatternKey* key = detail::key_at(document, cursor);
  if (!key || !model.index)
    return out;
  std::set<std::pair<std::string, int>> seen;
  detail::ModelQueries queries(model);
  for (int i : detail::match_key(queries, *key, model.compressor).ops) {
    auto loc = detail::op_location(model.index->ops[static_cast<std::size_t>(i)]);
    if (loc && seen.insert({loc->file, loc->line}).second) {
      out.push_back(*loc);
      if (out.size() >= max_locations)
        break;
    }
  }
  return out;
}

} // namespace opscope::features
