#include "json_record.h"

namespace opscope::inspect {

void malformed_record(const Archive& archive, const char* record, const std::string& what) {
  throw ArchiveError(archive.path + ": " + record + " is malformed (" + what +
                     "); export the model again with this opscope");
}

nlohmann::json read_json_record(const Archive& archive, const char* record, const char* format) {
  std::string text;
  try {
    text = archive.records->read(record);
  } catch (const std::exception& e) {
    throw ArchiveError(archive.path + ": cannot read " + record + " (" + e.what() +
                       "); export the model again");
  }
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || doc.value("format", "") != format)
    malformed_record(archive, record, std::string("not an ") + format + " record");
  if (!doc.contains("version") || doc["version"] != 1)
    malformed_record(archive, record, "unknown version; this opscope reads version 1");
  return doc;
}

} // namespace opscope::inspect
