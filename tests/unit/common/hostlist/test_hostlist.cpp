#include <catch2/catch.hpp>

#include "common/hostlist/hostlist.h"

using gantry::hostlist::compress;
using gantry::hostlist::expand;
using Names = std::vector<std::string>;

namespace {
Names mustExpand(std::string_view expr) {
  auto result = expand(expr);
  INFO(expr);
  REQUIRE(result.ok());
  return result.value();
}
std::string expandError(std::string_view expr) {
  auto result = expand(expr);
  REQUIRE_FALSE(result.ok());
  return result.error();
}
}  // namespace

TEST_CASE("expand: a simple range", "[hostlist]") {
  CHECK(mustExpand("tux[0-3]") == Names{"tux0", "tux1", "tux2", "tux3"});
  CHECK(mustExpand("tux[0-7]").size() == 8);
}

TEST_CASE("expand: zero padding follows the lower bound", "[hostlist]") {
  Names names = mustExpand("n[01-10,12]");
  REQUIRE(names.size() == 11);
  CHECK(names.front() == "n01");
  CHECK(names[8] == "n09");
  CHECK(names[9] == "n10");
  CHECK(names.back() == "n12");
  CHECK(mustExpand("n[8-10]") == Names{"n8", "n9", "n10"});
}

TEST_CASE("expand: several brackets form every combination", "[hostlist]") {
  CHECK(mustExpand("rack[1-2]-n[1-2]") == Names{"rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"});
}

TEST_CASE("expand: lists, single names and whitespace", "[hostlist]") {
  CHECK(mustExpand("a,b[1-3]") == Names{"a", "b1", "b2", "b3"});
  CHECK(mustExpand("a b") == Names{"a", "b"});
  CHECK(mustExpand("a,,b,") == Names{"a", "b"});
  CHECK(mustExpand("").empty());
  CHECK(mustExpand("x[5]") == Names{"x5"});
}

TEST_CASE("expand: device paths", "[hostlist]") {
  Names names = mustExpand("/dev/nvidia[0-15]");
  REQUIRE(names.size() == 16);
  CHECK(names[15] == "/dev/nvidia15");
  CHECK(mustExpand("/dev/dri/renderD[128-129]") == Names{"/dev/dri/renderD128", "/dev/dri/renderD129"});
}

TEST_CASE("expand: errors name the expression and the rule", "[hostlist]") {
  CHECK_THAT(expandError("tux[0-3"), Catch::Contains("tux[0-3") && Catch::Contains("unbalanced"));
  CHECK_THAT(expandError("tux0-3]"), Catch::Contains("unbalanced"));
  CHECK_THAT(expandError("tux[5-2]"), Catch::Contains("reversed range"));
  CHECK_THAT(expandError("tux[]"), Catch::Contains("empty brackets"));
  CHECK_THAT(expandError("tux[a-b]"), Catch::Contains("not a number"));
  CHECK_THAT(expandError("tux[[1]]"), Catch::Contains("nested"));
  CHECK_THAT(expandError("n[0-99999999]"), Catch::Contains("more than"));
  CHECK_THAT(expandError("a[0-2000]b[0-2000]"), Catch::Contains("more than"));
  CHECK_THAT(expandError("n[1-99999999999999999999]"), Catch::Contains("too long"));
}

TEST_CASE("compress: shortest bracket form", "[hostlist]") {
  CHECK(compress({"tux0", "tux1", "tux2", "tux5"}) == "tux[0-2,5]");
  CHECK(compress({"a", "b", "c"}) == "a,b,c");
  CHECK(compress({"tux3"}) == "tux3");
  CHECK(compress({"tux3", "tux1", "tux2", "tux2"}) == "tux[1-3]");
  CHECK(compress({}).empty());
}

TEST_CASE("compress: round trip keeps zero padding", "[hostlist]") {
  for (const char* expr : {"n[01-10,12]", "tux[0-7]", "rack1-n[1-4],rack2-n[1-4]", "/dev/nvidia[0-15]", "a,b[1-3]",
                           "n[001-120]"}) {
    INFO(expr);
    CHECK(compress(mustExpand(expr)) == expr);
  }
}

TEST_CASE("compress: different padding stays apart", "[hostlist]") {
  CHECK(compress({"n01", "n1"}) == "n01,n1");
}

TEST_CASE("formatHostnames prints one name a line", "[hostlist]") {
  auto out = gantry::hostlist::formatHostnames("n[1-3]");
  REQUIRE(out.ok());
  CHECK(out.value() == "n1\nn2\nn3\n");
}

TEST_CASE("compressInOrder keeps the written order", "[hostlist]") {
  using gantry::hostlist::compressInOrder;
  CHECK(compressInOrder({"n3", "n1", "n2", "a"}) == "n[3,1-2],a");
  CHECK(compressInOrder({"n1", "a", "n2"}) == "n1,a,n2");
  CHECK(compressInOrder({"n1", "n1"}) == "n[1,1]");
  CHECK(compressInOrder({"n09", "n10", "n11"}) == "n[09-11]");
  CHECK(compressInOrder({}).empty());
  for (const char* expr : {"tux[0-7]", "n[01-10,12]", "/dev/nvidia[0-15]", "c[5,1-3],d"}) {
    INFO(expr);
    CHECK(compressInOrder(mustExpand(expr)) == expr);
  }
}

TEST_CASE("sortNames: by prefix, plain names first, then by number", "[hostlist]") {
  using gantry::hostlist::sortNames;
  CHECK(sortNames({"gw20", "gw3", "gw", "bay10-x1", "bay9-x2"}) ==
        Names{"bay9-x2", "bay10-x1", "gw", "gw3", "gw20"});
  // Duplicates stay; equal names keep together.
  CHECK(sortNames({"gw2", "gw1", "gw2"}) == Names{"gw1", "gw2", "gw2"});
}
