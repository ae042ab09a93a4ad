#include "common/util/sluid.h"

#include <catch2/catch.hpp>

using gantry::canonicalSluid;
using gantry::jobSluid;
using gantry::runSluid;

TEST_CASE("sluid: a job's SLUID is 's' and 13 base32 digits, stable and per cluster", "[sluid]") {
  std::string sluid = jobSluid("orca", 4242);
  REQUIRE(sluid.size() == 14);
  CHECK(sluid[0] == 's');
  CHECK(sluid == jobSluid("orca", 4242));
  CHECK(sluid != jobSluid("orca", 4243));
  CHECK(sluid != jobSluid("narwhal", 4242));
  CHECK(runSluid("orca", 4242, 0) == sluid);
  CHECK(runSluid("orca", 4242, 2) != sluid);
}

TEST_CASE("sluid: what a user types is read back in the written form", "[sluid]") {
  std::string sluid = jobSluid("orca", 77);
  std::string lower = sluid;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  lower[0] = 'S';
  CHECK(canonicalSluid(sluid) == sluid);
  CHECK(canonicalSluid(lower) == sluid);
  // Crockford's look-alikes: O is 0, I and L are 1.
  CHECK(canonicalSluid("s0000000000001") == "s0000000000001");
  CHECK(canonicalSluid("sOOOOOOOOOOOOI") == "s0000000000001");
  CHECK(canonicalSluid("slllllllllllll") == "s1111111111111");
}

TEST_CASE("sluid: anything else is no SLUID", "[sluid]") {
  CHECK_FALSE(canonicalSluid(""));
  CHECK_FALSE(canonicalSluid("s"));
  CHECK_FALSE(canonicalSluid("12345678901234"));          // no leading s
  CHECK_FALSE(canonicalSluid("s000000000000"));           // 12 digits
  CHECK_FALSE(canonicalSluid("s00000000000000"));         // 14 digits
  CHECK_FALSE(canonicalSluid("s00000000000U0"));          // U is not a digit
  CHECK_FALSE(canonicalSluid("s000000000000-"));
  CHECK_FALSE(canonicalSluid(std::string_view("s00000000000\0" "0", 14)));
}
