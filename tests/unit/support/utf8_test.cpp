#include "opscope/support/utf8.h"

#include <gtest/gtest.h>

namespace opscope::support {
namespace {

TEST(Utf8, DecodesEachWellFormedSequence) {
  EXPECT_EQ(decode_utf8("a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"), U"a\u00E9\u20AC\U0001F600");
}

// Each byte that starts no well-formed sequence is one U+FFFD and the next byte is read
// again, so the letters after a stray byte survive.
TEST(Utf8, AnInvalidByteIsOneReplacementAndSwallowsNothing) {
  EXPECT_EQ(decode_utf8("a\x80"
                        "bcd"),
            U"a\uFFFDbcd");
  EXPECT_EQ(decode_utf8("\xF0\x9F"
                        "x"),
            U"\uFFFD\uFFFDx");                                   // truncated
  EXPECT_EQ(decode_utf8("\xC0\xAF"), U"\uFFFD\uFFFD");           // overlong "/"
  EXPECT_EQ(decode_utf8("\xED\xA0\x80"), U"\uFFFD\uFFFD\uFFFD"); // a UTF-16 surrogate
  EXPECT_EQ(decode_utf8("\xE2\x82"), U"\uFFFD\uFFFD");           // cut at the end
}

TEST(Utf8, EncodingRoundTripsAndReplacesWhatUtf8CannotHold) {
  std::string out;
  for (char32_t c : std::u32string(U"a\u00E9\u20AC\U0001F600"))
    append_utf8(out, c);
  EXPECT_EQ(out, "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  out.clear();
  append_utf8(out, 0xDC00);
  append_utf8(out, 0x110000);
  EXPECT_EQ(out, "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(Utf8, Utf16UnitsCountSurrogatePairs) {
  EXPECT_EQ(utf16_units(U'\u20AC'), 1u);
  EXPECT_EQ(utf16_units(U'\U0001F600'), 2u);
}

} // namespace
} // namespace opscope::support
