#include <catch2/catch.hpp>

#include "common/config/value_parse.h"

using namespace gantry::config;

TEST_CASE("parseBool accepts the usual spellings", "[config][values]") {
  CHECK(parseBool("YES").value());
  CHECK(parseBool("true").value());
  CHECK(parseBool("1").value());
  CHECK_FALSE(parseBool("no").value());
  CHECK_FALSE(parseBool("Off").value());
  CHECK_THAT(parseBool("maybe").error(), Catch::Contains("not a boolean"));
}

TEST_CASE("parseCount takes 1024-based suffixes", "[config][values]") {
  CHECK(parseCount("400").value() == 400);
  CHECK(parseCount("4G").value() == 4ull << 30);
  CHECK(parseCount("2k").value() == 2048);
  CHECK(parseCount("1T").value() == 1ull << 40);
  CHECK_FALSE(parseCount("4X").ok());
  CHECK_FALSE(parseCount("").ok());
  CHECK_FALSE(parseCount("99999999999P").ok());
}

TEST_CASE("parseSizeMb reads megabytes and suffixes", "[config][values]") {
  CHECK(parseSizeMb("8192").value() == 8192);
  CHECK(parseSizeMb("8G").value() == 8192);
  CHECK(parseSizeMb("1T").value() == 1024 * 1024);
  CHECK(parseSizeMb("1500K").value() == 2);
  CHECK_THAT(parseSizeMb("lots").error(), Catch::Contains("not a size"));
}

TEST_CASE("parseTimeMinutes covers every time form", "[config][values]") {
  CHECK(parseTimeMinutes("INFINITE").value() == -1);
  CHECK(parseTimeMinutes("unlimited").value() == -1);
  CHECK(parseTimeMinutes("60").value() == 60);
  CHECK(parseTimeMinutes("10:30").value() == 11);
  CHECK(parseTimeMinutes("2:00:00").value() == 120);
  CHECK(parseTimeMinutes("1-00:00:00").value() == 1440);
  CHECK(parseTimeMinutes("2-12").value() == 3600);
  CHECK(parseTimeMinutes("1-1:30").value() == 1530);
  CHECK_THAT(parseTimeMinutes("1:2:3:4").error(), Catch::Contains("not a time"));
  CHECK_FALSE(parseTimeMinutes("x").ok());
}

TEST_CASE("parseIntRanges expands and formatIntRanges compresses", "[config][values]") {
  auto cores = parseIntRanges("0-3,8,10-11");
  REQUIRE(cores.ok());
  CHECK(cores.value() == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK(formatIntRanges(cores.value()) == "0-3,8,10-11");
  CHECK_THAT(parseIntRanges("3-1").error(), Catch::Contains("reversed"));
  CHECK_FALSE(parseIntRanges("a").ok());
  CHECK_FALSE(parseIntRanges("").ok());
}

TEST_CASE("splitList drops empty items and blanks", "[config][values]") {
  CHECK(splitList(" a, b,,c ") == std::vector<std::string>{"a", "b", "c"});
  CHECK(icontains("NVIDIA_A100-PCIE", "a100"));
  CHECK(iequals("GresTypes", "grestypes"));
}
