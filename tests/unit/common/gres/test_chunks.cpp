#include <catch2/catch.hpp>

#include "common/gres/chunks.h"
#include "gres_builders.h"

using namespace gantry::gres;
using namespace gantry::gres::testing;

TEST_CASE("layout validation names the broken rule", "[gres][chunks]") {
  CHECK(validateChunkLayout({"", {2, 4, 8, 16}, {}}, 16).ok());
  auto notNested = validateChunkLayout({"", {2, 3, 6}, {}}, 6);
  REQUIRE_FALSE(notNested.ok());
  CHECK_THAT(notNested.error(), Catch::Contains("multiple of the one before"));
  CHECK_THAT(validateChunkLayout({"a100", {4}, {}}, 6).error(),
             Catch::Contains("gres/gpu:a100") && Catch::Contains("not a multiple"));
  CHECK_FALSE(validateChunkLayout({"", {8}, {}}, 4).ok());
  CHECK_FALSE(validateChunkLayout({"", {2}, {}}, 0).ok());
  CHECK_FALSE(validateChunkLayout({"", {2}, {}}, 2048).ok());
  CHECK_FALSE(validateChunkLayout({"", {0, 2}, {}}, 2).ok());
  CHECK_THAT(validateChunkLayout({"", {2}, {0, 1, 2}}, 4).error(), Catch::Contains("ChunkOrder has 3"));
  CHECK_THAT(validateChunkLayout({"", {2}, {0, 0}}, 2).error(), Catch::Contains("repeats"));
  CHECK_FALSE(validateChunkLayout({"", {2}, {0, 2}}, 2).ok());
  CHECK_FALSE(validateChunkLayout({"", {}, {0, 1}}, 2).ok());
}

TEST_CASE("ChunkOrder makes a chunk of 4 a 2x2 tile of the 4x4 fabric", "[gres][chunks]") {
  auto devices = gpus(16);
  std::vector<ChunkLayout> layouts{{"", {2, 4, 8, 16}, {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}}};
  auto domains = chunkDomains(devices, layouts);
  REQUIRE(domains.size() == 1);
  CHECK(chunkMask(domains[0], 4, 0) == (bitOf(0) | bitOf(1) | bitOf(4) | bitOf(5)));
  CHECK(chunkMask(domains[0], 4, 4) == (bitOf(2) | bitOf(3) | bitOf(6) | bitOf(7)));
  CHECK(chunkMask(domains[0], 2, 2) == (bitOf(4) | bitOf(5)));
  // Without ChunkOrder a chunk of 4 is a row.
  std::vector<ChunkLayout> rows{{"", {2, 4, 8, 16}, {}}};
  CHECK(chunkMask(chunkDomains(devices, rows)[0], 4, 4) == 0xf0);
}

TEST_CASE("chunk counts are sizes or the whole domain, never rounded", "[gres][chunks]") {
  auto devices = gpus(8);
  std::vector<ChunkLayout> layouts{{"", {1, 2, 4, 8}, {}}};
  auto domain = chunkDomains(devices, layouts)[0];
  CHECK(isChunkCount(domain, 1));
  CHECK(isChunkCount(domain, 4));
  CHECK_FALSE(isChunkCount(domain, 3));
  CHECK_FALSE(pickChunk(domain, 0xff, 3));
  CHECK(pickChunk(domain, 0xff, 8) == DeviceMask{0xff});
  CHECK_FALSE(pickChunk(domain, 0xfe, 8));
}

TEST_CASE("chunks are aligned and prefer a partly used parent", "[gres][chunks]") {
  auto devices = gpus(8);
  std::vector<ChunkLayout> layouts{{"", {2, 4, 8}, {}}};
  auto domain = chunkDomains(devices, layouts)[0];
  // 1 busy: pair 0-1 blocked; the pair 2-3 shares a parent with the busy
  // device, so it wins over the untouched 4-7 block.
  CHECK(pickChunk(domain, 0xfd, 2) == DeviceMask{0b1100});
  // 3 busy: pairs 0-1 preferred over 4-5.
  CHECK(pickChunk(domain, 0xf7, 2) == DeviceMask{0b0011});
  // Free 1,2,3,4: no aligned pair except 2-3.
  CHECK(pickChunk(domain, 0b11110, 2) == DeviceMask{0b1100});
  CHECK_FALSE(pickChunk(domain, 0b01010101, 2));
  CHECK(pickChunk(domain, 0xff, 4) == DeviceMask{0x0f});
}

TEST_CASE("typed domains number their devices from zero", "[gres][chunks]") {
  auto devices = gpus(22, "a100");
  for (int i = 16; i < 20; ++i) devices[i].type = "h100";
  for (int i = 20; i < 22; ++i) devices[i].type = "l4";
  std::vector<ChunkLayout> layouts{{"a100", {2, 4, 8, 16}, {}}, {"h100", {2, 4}, {}}};
  auto domains = chunkDomains(devices, layouts);
  REQUIRE(domains.size() == 2);
  CHECK(domains[1].devices == std::vector<int>{16, 17, 18, 19});
  CHECK(pickChunk(domains[1], domains[1].mask, 2) == (bitOf(16) | bitOf(17)));
  CHECK(pickChunk(domains[0], domains[0].mask, 4) == DeviceMask{0xf});
}
