#include "opscope/protocol/position.h"
#include "opscope/protocol/utf8.h"

#include <gtest/gtest.h>

#include <iterator>
#include <random>

namespace opscope::protocol {
namespace {

// "é" is 2 bytes / 1 UTF-16 unit; "😀" is 4 bytes / 2 UTF-16 units (a surrogate pair).
const std::string kText = "a\xC3\xA9"
                          "b\n"
                          "\xF0\x9F\x98\x80"
                          "x\r\nlast";

TEST(Position, Utf16CountsSurrogatePairsAsTwoUnits) {
  EXPECT_EQ(offset_at(kText, {0, 2}, PositionEncoding::Utf16), 3u); // before "b"
  EXPECT_EQ(offset_at(kText, {1, 2}, PositionEncoding::Utf16), 9u); // after the emoji
  EXPECT_EQ(position_at(kText, 9, PositionEncoding::Utf16), (Position{1, 2}));
  EXPECT_EQ(position_at(kText, 10, PositionEncoding::Utf16), (Position{1, 3}));
}

TEST(Position, Utf8CountsBytes) {
  EXPECT_EQ(offset_at(kText, {0, 3}, PositionEncoding::Utf8), 3u);
  EXPECT_EQ(position_at(kText, 9, PositionEncoding::Utf8), (Position{1, 4}));
}

TEST(Position, CrLfAndLoneCrEndLines) {
  EXPECT_EQ(offset_at(kText, {2, 0}, PositionEncoding::Utf16), 12u);
  EXPECT_EQ(position_at(kText, 12, PositionEncoding::Utf16), (Position{2, 0}));
  EXPECT_EQ(offset_at("a\rb", {1, 0}, PositionEncoding::Utf16), 2u);
}

TEST(Position, OutOfRangeClampsInsteadOfFailing) {
  EXPECT_EQ(offset_at(kText, {0, 99}, PositionEncoding::Utf16), 4u); // end of line 0
  EXPECT_EQ(offset_at(kText, {99, 0}, PositionEncoding::Utf16), kText.size());
  EXPECT_EQ(offset_at(kText, {-1, 0}, PositionEncoding::Utf16), 0u);
  EXPECT_EQ(position_at(kText, 9999, PositionEncoding::Utf16), (Position{2, 4}));
}

TEST(Position, InsideAMultiByteCharacterMapsToItsStart) {
  EXPECT_EQ(position_at(kText, 2, PositionEncoding::Utf16), (Position{0, 1}));
  // Half of a surrogate pair rounds up past the whole character.
  EXPECT_EQ(offset_at(kText, {1, 1}, PositionEncoding::Utf16), 9u);
}

TEST(Position, InvalidUtf8BytesCountAsOneUnitEach) {
  std::string text = "a\xFF\xFE"
                     "b";
  EXPECT_EQ(offset_at(text, {0, 3}, PositionEncoding::Utf16), 3u);
  EXPECT_EQ(position_at(text, 4, PositionEncoding::Utf16), (Position{0, 4}));
  EXPECT_EQ(sanitize_utf8(text), "a\xEF\xBF\xBD\xEF\xBF\xBD"
                                 "b");
}

TEST(Position, NegotiationPrefersUtf8WhenOffered) {
  EXPECT_EQ(negotiate_position_encoding({"utf-16", "utf-8"}), PositionEncoding::Utf8);
  EXPECT_EQ(negotiate_position_encoding({"utf-32"}), PositionEncoding::Utf16);
  EXPECT_EQ(negotiate_position_encoding({}), PositionEncoding::Utf16);
}

TEST(Position, LineTableGivesLinesWithoutBreaks) {
  LineTable table(kText);
  EXPECT_EQ(table.line_count(), 3);
  EXPECT_EQ(table.line(1), "\xF0\x9F\x98\x80"
                           "x");
  EXPECT_EQ(table.line(2), "last");

  // Only "\n" (the common case, found with memchr), a trailing break, an empty text.
  LineTable unix_text("a: 1\n\n  b\n");
  EXPECT_EQ(unix_text.line_count(), 4);
  EXPECT_EQ(unix_text.line(1), "");
  EXPECT_EQ(unix_text.line(2), "  b");
  EXPECT_EQ(unix_text.line(3), "");
  EXPECT_EQ(LineTable("").line_count(), 1);
  EXPECT_EQ(LineTable("one").line(0), "one");
}

// The starts kept across an edit are those of the edited text read afresh, for edits that
// split, join or make "\r\n" pairs, at the start and end of the text.
TEST(Position, LineTableEditedMatchesATableOfTheNewText) {
  std::mt19937 random(23);
  const std::string pieces[] = {"a", "\n", "\r", "\r\n", "xy", "\n\n", ""};
  auto piece = [&] { return pieces[random() % std::size(pieces)]; };
  for (int run = 0; run < 200; ++run) {
    std::string text;
    for (int i = 0; i < 12; ++i)
      text += piece();
    LineTable table(text);
    for (int step = 0; step < 20; ++step) {
      std::size_t begin = random() % (text.size() + 1);
      std::size_t end = begin + random() % (text.size() - begin + 1);
      std::string inserted = piece() + piece();
      std::string before = text;
      text.replace(begin, end - begin, inserted);
      table.edited(begin, end, inserted.size(), text);
      LineTable fresh(text);
      ASSERT_EQ(table.line_count(), fresh.line_count())
          << "editing " << testing::PrintToString(before);
      for (int line = 0; line < fresh.line_count(); ++line) {
        ASSERT_EQ(table.offset_at({line, 0}, PositionEncoding::Utf8),
                  fresh.offset_at({line, 0}, PositionEncoding::Utf8))
            << "line " << line << " of " << testing::PrintToString(text);
        ASSERT_EQ(table.line(line), fresh.line(line));
      }
    }
  }
}

TEST(Utf8, RejectsOverlongAndSurrogateEncodings) {
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong "/"
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // UTF-16 surrogate
  EXPECT_TRUE(is_valid_utf8("\xE2\x82\xAC plain")); // "€"
}

} // namespace
} // namespace opscope::protocol
