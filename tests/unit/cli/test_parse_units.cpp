#include <catch2/catch.hpp>

#include "cli/parse_units.h"
#include "cli/time_format.h"

using namespace gantry::cli;

TEST_CASE("time limits in every Slurm form", "[cli][units]") {
  struct Case {
    const char* text;
    int64_t minutes;
  };
  for (const Case& c : {Case{"30", 30}, Case{"5:30", 6}, Case{"0:30", 1}, Case{"1:00:00", 60},
                        Case{"2:30:00", 150}, Case{"1-0", 1440}, Case{"1-2", 1560},
                        Case{"1-2:30", 1590}, Case{"1-2:30:01", 1591}, Case{"UNLIMITED", -1},
                        Case{"infinite", -1}, Case{"0", 0}}) {
    INFO(c.text);
    auto parsed = parseTimeLimitMinutes(c.text);
    REQUIRE(parsed.ok());
    CHECK(*parsed == c.minutes);
  }
}

TEST_CASE("bad time limits are refused with the accepted forms", "[cli][units]") {
  for (const char* text : {"", "abc", "1:2:3:4", "1-", "-5", "1-2-3", "1:x", "1.5"}) {
    INFO(text);
    auto parsed = parseTimeLimitMinutes(text);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(), Catch::Contains("invalid time limit"));
  }
}

TEST_CASE("memory sizes default to megabytes", "[cli][units]") {
  CHECK(*parseMemoryMb("100") == 100);
  CHECK(*parseMemoryMb("100M") == 100);
  CHECK(*parseMemoryMb("4G") == 4096);
  CHECK(*parseMemoryMb("4g") == 4096);
  CHECK(*parseMemoryMb("1T") == 1024 * 1024);
  CHECK(*parseMemoryMb("2048K") == 2);
  CHECK(*parseMemoryMb("1K") == 1);
  CHECK_THAT(parseMemoryMb("4X").error(), Catch::Contains("unit must be K, M, G or T"));
  CHECK_THAT(parseMemoryMb("G").error(), Catch::Contains("expected a whole number"));
  CHECK_THAT(parseMemoryMb("-1").error(), Catch::Contains("invalid size"));
}

TEST_CASE("node ranges", "[cli][units]") {
  auto one = parseNodeRange("5");
  REQUIRE(one.ok());
  CHECK(one->min == 5);
  CHECK(one->max == 0);
  auto range = parseNodeRange("2-4");
  REQUIRE(range.ok());
  CHECK(range->min == 2);
  CHECK(range->max == 4);
  CHECK_THAT(parseNodeRange("4-2").error(), Catch::Contains("maximum is below minimum"));
  CHECK_THAT(parseNodeRange("x").error(), Catch::Contains("expected N or MIN-MAX"));
  CHECK_FALSE(parseNodeRange("0").ok());
}

TEST_CASE("node counts take Slurm's k and m suffixes", "[cli][units]") {
  struct Case {
    const char* text;
    int32_t min;
    int32_t max;
  };
  const Case cases[] = {
      {"3k", 3 * 1024, 0},
      {"2K-3k", 2048, 3072},
      {"1m", 1024 * 1024, 0},
      {"7-2M", 7, 2 * 1024 * 1024},
  };
  for (const Case& c : cases) {
    SECTION(c.text) {
      auto range = parseNodeRange(c.text);
      REQUIRE(range.ok());
      CHECK(range->min == c.min);
      CHECK(range->max == c.max);
    }
  }
  CHECK_FALSE(parseNodeRange("k").ok());
  CHECK_FALSE(parseNodeRange("2x").ok());
  CHECK_FALSE(parseNodeRange("4096m").ok());  // past a 32-bit count
  CHECK_FALSE(parseNodeRange("0k").ok());
}

TEST_CASE("GRES lists", "[cli][units]") {
  auto items = parseGresList("gpu:a100:2,mps:100,gpu,gpu:tesla");
  REQUIRE(items.ok());
  REQUIRE(items->size() == 4);
  CHECK((*items)[0].name == "gpu");
  CHECK((*items)[0].type == "a100");
  CHECK((*items)[0].count == 2);
  CHECK((*items)[1].name == "mps");
  CHECK((*items)[1].type.empty());
  CHECK((*items)[1].count == 100);
  CHECK((*items)[2].count == 1);
  CHECK((*items)[3].type == "tesla");
  CHECK((*items)[3].count == 1);
  CHECK_THAT(parseGresList("gpu:a100:x").error(), Catch::Contains("is not a number"));
  CHECK_THAT(parseGresList("gpu:0").error(), Catch::Contains("at least 1"));
  CHECK_THAT(parseGresList("gpu,,mps").error(), Catch::Contains("expected name[:type][:count]"));
  CHECK_THAT(parseGresList("a:b:1:2").error(), Catch::Contains("expected name[:type][:count]"));
}

TEST_CASE("GRES request counts take size suffixes", "[cli][units]") {
  struct Row {
    const char* rule;
    const char* text;
    std::string type;
    uint64_t count;
  };
  const Row rows[] = {
      {"K is 1024", "scratch:nvme:3K", "nvme", 3ULL << 10},
      {"M is 1024^2, case-insensitive", "scratch:nvme:7m", "nvme", 7ULL << 20},
      {"G is 1024^3", "bandwidth:gpfs:6G", "gpfs", 6ULL << 30},
      {"T is 1024^4", "bandwidth:gpfs:2T", "gpfs", 2ULL << 40},
      {"P is 1024^5", "bandwidth:gpfs:1P", "gpfs", 1ULL << 50},
      {"an untyped count takes a suffix too", "bandwidth:5G", "", 5ULL << 30},
      {"a type that is not a count stays a type", "gpu:1g.10gb", "1g.10gb", 1},
  };
  for (const auto& row : rows) {
    SECTION(row.rule) {
      auto items = parseGresList(row.text);
      REQUIRE(items.ok());
      REQUIRE(items->size() == 1);
      CHECK((*items)[0].type == row.type);
      CHECK((*items)[0].count == row.count);
    }
  }
  CHECK_THAT(parseGresList("bandwidth:gpfs:4X").error(), Catch::Contains("count '4X' is not a number"));
  CHECK_THAT(parseGresList("bandwidth:gpfs:G").error(), Catch::Contains("is not a number"));
  CHECK_THAT(parseGresList("bandwidth:gpfs:99999999P").error(), Catch::Contains("is not a number"));
  CHECK_THAT(parseGresList("bandwidth:gpfs:0G").error(), Catch::Contains("at least 1"));
}

TEST_CASE("GPU counts with optional type", "[cli][units]") {
  auto plain = parseGpuCount("4");
  REQUIRE(plain.ok());
  CHECK(plain->count == 4);
  CHECK(plain->type.empty());
  auto typed = parseGpuCount("a100:2");
  REQUIRE(typed.ok());
  CHECK(typed->type == "a100");
  CHECK(typed->count == 2);
  CHECK_FALSE(parseGpuCount("a100:").ok());
  CHECK_FALSE(parseGpuCount(":2").ok());
  // 0 asks for no GPU (srun --gpus-per-node=0 inside a GPU job).
  REQUIRE(parseGpuCount("0").ok());
  CHECK(parseGpuCount("0")->count == 0);
  CHECK_FALSE(parseGpuCount("-1").ok());
}

TEST_CASE("durations print like squeue and scontrol", "[cli][units]") {
  CHECK(formatElapsedShort(5) == "0:05");
  CHECK(formatElapsedShort(65) == "1:05");
  CHECK(formatElapsedShort(3600) == "1:00:00");
  CHECK(formatElapsedShort(90061) == "1-01:01:01");
  CHECK(formatElapsedLong(5) == "00:00:05");
  CHECK(formatElapsedLong(90061) == "1-01:01:01");
  CHECK(formatLimitMinutes(-1, "UNLIMITED") == "UNLIMITED");
  CHECK(formatLimitMinutes(30, "infinite") == "30:00");
}

TEST_CASE("time limits in seconds keep MM:SS exactly") {
  using gantry::cli::parseTimeLimitSeconds;
  CHECK(*parseTimeLimitSeconds("0:02") == 2);
  CHECK(*parseTimeLimitSeconds("5") == 300);
  CHECK(*parseTimeLimitSeconds("1:00:05") == 3605);
  CHECK(*parseTimeLimitSeconds("1-0") == 86400);
  CHECK(*parseTimeLimitSeconds("UNLIMITED") == gantry::cli::kUnlimitedSeconds);
  CHECK_FALSE(parseTimeLimitSeconds("1:x").ok());
}

TEST_CASE("nice: an integer within Slurm's bound, negative too", "[cli][units]") {
  CHECK(*gantry::cli::parseNice("250") == 250);
  CHECK(*gantry::cli::parseNice("-40") == -40);
  CHECK(*gantry::cli::parseNice("2147483645") == 2147483645);
  for (const char* bad : {"", "x", "10x", "2147483646", "-2147483646", "1e3"}) {
    INFO(bad);
    auto nice = gantry::cli::parseNice(bad);
    REQUIRE_FALSE(nice);
    CHECK(nice.error().find("Invalid nice value") != std::string::npos);
  }
}
