#include "common/util/json_text.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using gantry::appendJsonString;

namespace {

std::string quoted(std::string_view text) {
  std::string out;
  appendJsonString(out, text);
  return out;
}

// What a JSON parser reads back from the written text.
std::string readBack(std::string_view text) { return nlohmann::json::parse(quoted(text)).get<std::string>(); }

}  // namespace

TEST_CASE("json text: plain text is quoted as it is", "[json_text]") {
  CHECK(quoted("") == "\"\"");
  CHECK(quoted("gpu=2,cpu=16") == "\"gpu=2,cpu=16\"");
}

TEST_CASE("json text: quotes, backslashes and control characters are escaped", "[json_text]") {
  CHECK(quoted("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(quoted("l1\nl2\tx\r") == "\"l1\\nl2\\tx\\r\"");
  CHECK(quoted(std::string_view("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(quoted(std::string_view("a\0b", 3)) == "\"a\\u0000b\"");
  CHECK(readBack(std::string_view("n\0\x07\"\\\b\f", 7)) == std::string("n\0\x07\"\\\b\f", 7));
}

TEST_CASE("json text: valid UTF-8 is kept byte for byte", "[json_text]") {
  for (std::string text : {"\xC3\xA9t\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x9A\x80", "\xF4\x8F\xBF\xBF", "\xED\x9F\xBF"}) {
    CHECK(readBack(text) == text);
  }
}

TEST_CASE("json text: bytes that are not UTF-8 become U+FFFD and the text still parses", "[json_text]") {
  const std::string r = "\xEF\xBF\xBD";
  struct Row {
    const char* rule;
    std::string in;
    std::string out;
  };
  for (const Row& row : std::vector<Row>{
           {"a lone continuation byte", "a\x80z", "a" + r + "z"},
           {"a lead byte at the end", "ab\xC3", "ab" + r},
           {"a lead byte followed by ASCII", "\xE2(x", r + "(x"},
           {"an overlong two-byte form", "\xC0\xAF", r + r},
           {"an overlong three-byte form", "\xE0\x80\xAF", r + r + r},
           {"a surrogate", "\xED\xA0\x80", r + r + r},
           {"past U+10FFFF", "\xF4\x90\x80\x80", r + r + r + r},
           {"a byte that is never UTF-8", "\xFF", r},
       }) {
    INFO(row.rule);
    CHECK(readBack(row.in) == row.out);
  }
}
