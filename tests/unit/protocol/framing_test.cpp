#include "opscope/protocol/framing.h"

#include <gtest/gtest.h>

#include <vector>

namespace opscope::protocol {
namespace {

// Everything the decoder produced so far, frames as their body and errors as "!message".
std::vector<std::string> drain(FrameDecoder& decoder) {
  std::vector<std::string> out;
  while (auto event = decoder.next()) {
    if (auto frame = std::get_if<Frame>(&*event))
      out.push_back(frame->body);
    else
      out.push_back("!" + std::get<FramingError>(*event).message);
  }
  return out;
}

TEST(FrameDecoder, DecodesBackToBackMessages) {
  FrameDecoder decoder;
  decoder.feed(frame_message("{\"a\":1}") + frame_message("{\"b\":2}"));
  EXPECT_EQ(drain(decoder), (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
}

TEST(FrameDecoder, ReassemblesBytesArrivingOneAtATime) {
  FrameDecoder decoder;
  std::string wire = frame_message("{\"method\":\"x\"}");
  std::vector<std::string> got;
  for (char c : wire) {
    decoder.feed(std::string_view(&c, 1));
    for (auto& body : drain(decoder))
      got.push_back(body);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"{\"method\":\"x\"}"}));
}

TEST(FrameDecoder, IgnoresExtraHeadersAndHeaderCase) {
  FrameDecoder decoder;
  decoder.feed("content-length: 2\r\nContent-Type: application/vscode-jsonrpc; "
               "charset=utf-8\r\n\r\n{}");
  EXPECT_EQ(drain(decoder), (std::vector<std::string>{"{}"}));
}

TEST(FrameDecoder, MissingContentLengthIsReportedAndNextMessageStillArrives) {
  FrameDecoder decoder;
  decoder.feed("Content-Type: x\r\n\r\n{\"lost\":1}" + frame_message("{\"ok\":1}"));
  auto got = drain(decoder);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "!missing Content-Length header");
  EXPECT_EQ(got[1], "{\"ok\":1}");
}

TEST(FrameDecoder, NonNumericContentLengthIsReported) {
  FrameDecoder decoder;
  decoder.feed("Content-Length: ten\r\n\r\n{}" + frame_message("{\"ok\":1}"));
  auto got = drain(decoder);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_NE(got[0].find("invalid Content-Length"), std::string::npos);
  EXPECT_EQ(got[1], "{\"ok\":1}");
}

TEST(FrameDecoder, TooShortContentLengthLosesOnlyThatMessage) {
  FrameDecoder decoder;
  decoder.feed("Content-Length: 5\r\n\r\n{\"method\":\"a\"}" + frame_message("{\"ok\":1}"));
  auto got = drain(decoder);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], "{\"met"); // framed, and will fail to parse as JSON
  EXPECT_EQ(got[1], "!expected a \"Content-Length: N\" header");
  EXPECT_EQ(got[2], "{\"ok\":1}");
}

TEST(FrameDecoder, TooLongContentLengthRecoversAtTheNextHeader) {
  FrameDecoder decoder;
  decoder.feed("Content-Length: 500\r\n\r\n{\"first\":1}" + frame_message("{\"second\":2}"));
  auto got = drain(decoder);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "{\"first\":1}");
  EXPECT_EQ(got[1], "{\"second\":2}");
}

TEST(FrameDecoder, TooLongContentLengthIsFlushedWhenInputStalls) {
  FrameDecoder decoder;
  decoder.feed("Content-Length: 500\r\n\r\n{\"only\":1}");
  EXPECT_TRUE(drain(decoder).empty());
  decoder.flush_stalled();
  EXPECT_EQ(drain(decoder), (std::vector<std::string>{"{\"only\":1}"}));
}

TEST(FrameDecoder, BodyWithoutHeaderIsReported) {
  FrameDecoder decoder;
  decoder.feed("{\"jsonrpc\":\"2.0\"}\r\n" + frame_message("{\"ok\":1}"));
  auto got = drain(decoder);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0][0], '!');
  EXPECT_EQ(got[1], "{\"ok\":1}");
}

TEST(FrameDecoder, OversizedBodyIsSkippedWithoutBuffering) {
  FrameDecoder decoder(/*max_body=*/100);
  decoder.feed("Content-Length: 1000\r\n\r\n");
  decoder.feed(std::string(600, 'x'));
  decoder.feed(std::string(400, 'y') + frame_message("{\"ok\":1}"));
  auto got = drain(decoder);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_NE(got[0].find("exceeds the limit"), std::string::npos);
  EXPECT_EQ(got[1], "{\"ok\":1}");
}

TEST(FrameDecoder, TenMegabyteBodyArrives) {
  FrameDecoder decoder;
  std::string body = "{\"text\":\"" + std::string(10u << 20, 'a') + "\"}";
  std::string wire = frame_message(body);
  for (std::size_t i = 0; i < wire.size(); i += 65536)
    decoder.feed(std::string_view(wire).substr(i, 65536));
  auto got = drain(decoder);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].size(), body.size());
}

TEST(FrameDecoder, GarbageNeverLoopsForever) {
  FrameDecoder decoder;
  decoder.feed("garbage without any structure at all Con");
  auto got = drain(decoder);
  ASSERT_EQ(got.size(), 1u);
  decoder.feed("tent-Length: 2\r\n\r\n{}");
  EXPECT_EQ(drain(decoder), (std::vector<std::string>{"{}"}));
}

TEST(FrameDecoder, HugeLengthWithSmallBodyDoesNotSwallowTheNextMessage) {
  // Issue 14: "Content-Length: 67108865" used to make the decoder drop that
  // many bytes, every later message with them.
  FrameDecoder decoder;
  decoder.feed("Content-Length: 67108865\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1}" +
               frame_message("{\"ok\":1}"));
  auto got = drain(decoder);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_NE(got[0].find("67108865 bytes exceeds the limit of 67108864"), std::string::npos);
  EXPECT_EQ(got[1], "{\"ok\":1}");
}

TEST(FrameDecoder, OversizedSkipIgnoresHeaderTextInsideTheBody) {
  FrameDecoder decoder(/*max_body=*/10);
  // The body quotes a header; JSON escapes its line break, so it is not one.
  decoder.feed("Content-Length: 60\r\n\r\n{\"text\":\"Content-Length: 3\\r\\n\\r\\nabc\"}");
  EXPECT_EQ(drain(decoder).size(), 1u);
  // The next real header arrives split inside its number.
  decoder.feed("Content-Len");
  decoder.feed("gth: 1");
  EXPECT_TRUE(drain(decoder).empty());
  decoder.feed("0\r\n\r\n{\"ok\":123}");
  EXPECT_EQ(drain(decoder), (std::vector<std::string>{"{\"ok\":123}"}));
}

TEST(FrameDecoder, OversizedSkipKeepsLittleWhileWaiting) {
  FrameDecoder decoder(/*max_body=*/10);
  decoder.feed("Content-Length: 100000000\r\n\r\n");
  for (int i = 0; i < 100; ++i)
    decoder.feed(std::string(65536, 'x'));
  decoder.flush_stalled(); // the stall timer must not report the skipped bytes again
  EXPECT_EQ(drain(decoder).size(), 1u);
  EXPECT_FALSE(decoder.has_partial());
  decoder.feed(frame_message("{}"));
  EXPECT_EQ(drain(decoder), (std::vector<std::string>{"{}"}));
}

TEST(FrameDecoder, ManyFakeHeadersInsideALongBodyCostLittle) {
  // Each header found inside a too long body used to trigger a full JSON check
  // of the body so far: quadratic in a stream of fake headers.
  FrameDecoder decoder;
  decoder.feed("Content-Length: 60000000\r\n\r\n{\"a\":\"");
  std::string fakes;
  for (int i = 0; i < 20000; ++i)
    fakes += "}Content-Length: 1\r\n";
  for (int i = 0; i < 50; ++i)
    decoder.feed(fakes); // 20 MB, a million fake headers: hours if quadratic
  EXPECT_TRUE(drain(decoder).empty());
  EXPECT_TRUE(decoder.has_partial());
}

} // namespace
} // namespace opscope::protocol
