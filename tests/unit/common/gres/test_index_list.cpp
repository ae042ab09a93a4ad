#include <catch2/catch.hpp>

#include "common/gres/index_list.h"

using namespace gantry::gres;

TEST_CASE("index lists compress runs and sort", "[gres][index]") {
  CHECK(formatIndexList({}) == "");
  CHECK(formatIndexList({3}) == "3");
  CHECK(formatIndexList({0, 1}) == "0-1");
  CHECK(formatIndexList({5, 0, 2, 1, 2}) == "0-2,5");
  CHECK(formatIndexList({0, 2, 4}) == "0,2,4");
}

TEST_CASE("masks convert to indexes and back", "[gres][index]") {
  CHECK(maskToIndexes(0b1011) == std::vector<int>{0, 1, 3});
  CHECK(indexesToMask({0, 1, 3, 99}) == 0b1011);
  CHECK(maskToIndexes(bitOf(63)) == std::vector<int>{63});
}
