#include "opscope/protocol/json_text.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace opscope::protocol {
namespace {

using Json = nlohmann::json;

std::string as_json_string(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

TEST(JsonText, StringsAreEscapedLikeNlohmannDumps) {
  for (std::string text :
       {std::string(""), std::string("layer1\\.0\\.conv1"), std::string("'quoted' \"double\""),
        std::string("tab\tnew\nline\r"), std::string("\b\f\x01\x1f\x7f"),
        std::string("caf\xC3\xA9 \xF0\x9F\x98\x80"), std::string("nul\0byte", 8)})
    EXPECT_EQ(as_json_string(text), Json(text).dump()) << text;
}

TEST(JsonText, InvalidUtf8BecomesReplacementCharacters) {
  std::string written = as_json_string("bad \xC3 and \xFF end");
  Json parsed = Json::parse(written); // must be valid JSON (and UTF-8) for the client
  EXPECT_EQ(parsed.get<std::string>(), "bad \xEF\xBF\xBD and \xEF\xBF\xBD end");
}

TEST(JsonText, ObjectWriterSeparatesFields) {
  std::string out;
  {
    JsonObjectWriter object(out);
    object.field("flag", true);
    object.field("kind", "markdown");
    object.field("line", std::int64_t{-3});
    JsonObjectWriter inner(object.key("nested"));
  }
  EXPECT_EQ(out, R"({"flag":true,"kind":"markdown","line":-3,"nested":{}})");
}

} // namespace
} // namespace opscope::protocol
