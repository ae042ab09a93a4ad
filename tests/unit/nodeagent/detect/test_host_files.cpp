#include <catch2/catch.hpp>

#include "nodeagent/detect/host_files.h"

using namespace gantry::detect;

TEST_CASE("cpu lists parse ranges and single ids", "[detect][host_files]") {
  auto ids = parseCpuList("0-3,8,10-11\n", "local_cpulist");
  REQUIRE(ids.ok());
  CHECK(*ids == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK(formatIdList(*ids) == "0-3,8,10-11");
}

TEST_CASE("a bad cpu list names the file and the piece", "[detect][host_files]") {
  auto ids = parseCpuList("0-3,x", "/sys/x/local_cpulist");
  REQUIRE_FALSE(ids.ok());
  CHECK(ids.error() == "/sys/x/local_cpulist: 'x' is not a CPU number or ascending range");
  CHECK_FALSE(parseCpuList("5-2", "f").ok());
}

TEST_CASE("bus ids are normalised to four domain digits", "[detect][host_files]") {
  CHECK(normalizeBusId("00000000:17:00.0") == "0000:17:00.0");
  CHECK(normalizeBusId("0000:B3:00.0") == "0000:b3:00.0");
  CHECK(normalizeBusId("17:00.0") == "0000:17:00.0");
}

TEST_CASE("host paths join the host root", "[detect][host_files]") {
  CHECK(hostPath("/", "/proc/meminfo") == "/proc/meminfo");
  CHECK(hostPath("fixtures/a/", "/proc/meminfo") == "fixtures/a/proc/meminfo");
}
