// SchedulerParameters' scheduling items (common/config/scheduler_parameters.h):
// one row per rule, with Slurm's ranges.
#include <catch2/catch.hpp>

#include "common/config/scheduler_parameters.h"

using namespace gantry::config;

TEST_CASE("scheduler parameters: each item's value and range", "[config][scheduling]") {
  struct Case {
    const char* rule;
    const char* item;
    bool recognised;
    const char* error;  // "" when read
    int64_t (*read)(const SchedulingParameters&);
    int64_t expected;
  };
  const Case cases[] = {
      {"bf_max_job_test is a number of jobs", "bf_max_job_test=40", true, "",
       [](const SchedulingParameters& p) -> int64_t { return p.bfMaxJobTest; }, 40},
      {"bf_max_job_test is at least one", "bf_max_job_test=0", true, "bf_max_job_test must be a number of jobs from 1",
       nullptr, 0},
      {"bf_max_job_user 0 is no limit", "bf_max_job_user=0", true, "",
       [](const SchedulingParameters& p) -> int64_t { return p.bfMaxJobUser; }, 0},
      {"bf_max_job_user is a number of jobs", "bf_max_job_user=3", true, "",
       [](const SchedulingParameters& p) -> int64_t { return p.bfMaxJobUser; }, 3},
      {"bf_window is in minutes", "bf_window=90", true, "",
       [](const SchedulingParameters& p) -> int64_t { return p.bfWindowSec; }, 5400},
      {"bf_window is positive", "bf_window=-5", true, "bf_window must be a number of minutes", nullptr, 0},
      {"bf_resolution is seconds up to an hour", "bf_resolution=600", true, "",
       [](const SchedulingParameters& p) -> int64_t { return p.bfResolutionSec; }, 600},
      {"bf_resolution above an hour is refused", "bf_resolution=3601", true,
       "bf_resolution must be a number of seconds from 1 to 3600", nullptr, 0},
      {"bf_interval is seconds up to three hours", "bf_interval=10800", true, "",
       [](const SchedulingParameters& p) -> int64_t { return p.bfIntervalSec; }, 10800},
      {"bf_interval -1 turns backfill off", "bf_interval=-1", true, "",
       [](const SchedulingParameters& p) -> int64_t { return p.backfillOn() ? 1 : 0; }, 0},
      {"bf_interval 0 is refused", "bf_interval=0", true, "or -1 to turn it off", nullptr, 0},
      {"bf_continue is a flag", "bf_continue", true, "",
       [](const SchedulingParameters& p) -> int64_t { return p.bfContinue ? 1 : 0; }, 1},
      {"default_queue_depth is a number of jobs", "default_queue_depth=7", true, "",
       [](const SchedulingParameters& p) -> int64_t { return p.defaultQueueDepth; }, 7},
      {"default_queue_depth is not words", "default_queue_depth=deep", true, "default_queue_depth=deep: ", nullptr, 0},
      {"sched_interval -1 turns the main passes off", "sched_interval=-1", true, "",
       [](const SchedulingParameters& p) -> int64_t { return p.mainPassesOn() ? 1 : 0; }, 0},
      {"sched_interval is seconds", "sched_interval=45", true, "",
       [](const SchedulingParameters& p) -> int64_t { return p.schedIntervalSec; }, 45},
      {"other items are not these", "bf_yield_interval=1000000", false, "", nullptr, 0},
      {"a key is matched whole", "bf_windowsize=3", false, "", nullptr, 0},
  };
  for (const Case& c : cases) {
    SECTION(c.rule) {
      SchedulingParameters parameters;
      ParameterReading reading = readSchedulingParameter(c.item, parameters);
      CHECK(reading.recognised == c.recognised);
      if (std::string(c.error).empty()) {
        CHECK(reading.error.empty());
        if (c.read != nullptr) CHECK(c.read(parameters) == c.expected);
      } else {
        CHECK_THAT(reading.error, Catch::Contains(c.error));
        CHECK(parameters.bfMaxJobTest == SchedulingParameters{}.bfMaxJobTest);
      }
    }
  }
}

TEST_CASE("scheduler parameters: Slurm's defaults", "[config][scheduling]") {
  SchedulingParameters defaults;
  CHECK(defaults.bfMaxJobTest == 500);
  CHECK(defaults.bfWindowSec == 86400);
  CHECK(defaults.bfResolutionSec == 60);
  CHECK(defaults.bfIntervalSec == 30);
  CHECK(defaults.defaultQueueDepth == 100);
  CHECK(defaults.schedIntervalSec == 60);
  CHECK_FALSE(defaults.bfContinue);
}
