// sacct's -S/-E forms, one row per rule, from a fixed "now" in UTC.
#include <catch2/catch.hpp>

#include <ctime>

#include "cli/sacct_time.h"
#include "cli_fixtures.h"

using namespace gantry::cli;

namespace {

int64_t utc(int year, int month, int day, int hour = 0, int minute = 0, int second = 0) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<int64_t>(timegm(&tm));
}

// Wednesday 2027-03-10 14:25:36 UTC.
const int64_t kNow = utc(2027, 3, 10, 14, 25, 36);

}  // namespace

TEST_CASE("sacct time forms", "[cli][sacct][time]") {
  cli_fixtures::useUtc();
  struct Row {
    const char* rule;
    const char* text;
    int64_t expected;
  };
  const Row rows[] = {
      {"HH:MM is today", "09:05", utc(2027, 3, 10, 9, 5)},
      {"HH:MM:SS is today", "09:05:07", utc(2027, 3, 10, 9, 5, 7)},
      {"a later time of day is still today (looking back)", "23:10", utc(2027, 3, 10, 23, 10)},
      {"PM adds twelve hours", "3:30 PM", utc(2027, 3, 10, 15, 30)},
      {"12 AM is midnight", "12:00am", utc(2027, 3, 10, 0, 0)},
      {"MMDD is this year at 00:00", "0207", utc(2027, 2, 7)},
      {"MMDDYY names the year", "020725", utc(2025, 2, 7)},
      {"a later month without a year is last year", "1104", utc(2026, 11, 4)},
      {"MM/DD", "02/07", utc(2027, 2, 7)},
      {"MM/DD/YY", "02/07/26", utc(2026, 2, 7)},
      {"MM.DD.YY", "02.07.26", utc(2026, 2, 7)},
      {"MM/DD-HH:MM", "02/07-18:45", utc(2027, 2, 7, 18, 45)},
      {"YYYY-MM-DD", "2026-08-19", utc(2026, 8, 19)},
      {"YYYY-MM-DDTHH:MM", "2026-08-19T06:40", utc(2026, 8, 19, 6, 40)},
      {"YYYY-MM-DDTHH:MM:SS", "2026-08-19T06:40:12", utc(2026, 8, 19, 6, 40, 12)},
      {"now", "now", kNow},
      {"now-N is seconds by default", "now-90", kNow - 90},
      {"now+N minutes", "now+7minutes", kNow + 7 * 60},
      {"now-N hours", "now-5hours", kNow - 5 * 3600},
      {"now-N days", "now-3days", kNow - 3 * 86400},
      {"now-N weeks", "now-2weeks", kNow - 14 * 86400},
      {"a shortened unit", "now-4h", kNow - 4 * 3600},
      {"today is 00:00 today", "today", utc(2027, 3, 10)},
      {"midnight is 00:00 today", "midnight", utc(2027, 3, 10)},
      {"noon", "noon", utc(2027, 3, 10, 12)},
      {"elevenses", "elevenses", utc(2027, 3, 10, 11)},
      {"fika", "fika", utc(2027, 3, 10, 15)},
      {"teatime", "teatime", utc(2027, 3, 10, 16)},
      {"tomorrow is 00:00 tomorrow", "tomorrow", utc(2027, 3, 11)},
      {"a day word and a time word combine", "tomorrow noon", utc(2027, 3, 11, 12)},
      {"words are case-insensitive", "Today", utc(2027, 3, 10)},
      {"uts is seconds since the epoch", "uts1700000000", 1700000000},
  };
  for (const Row& row : rows) {
    INFO(row.rule << ": " << row.text);
    auto parsed = parseSacctTime(row.text, kNow);
    REQUIRE(parsed.ok());
    CHECK(*parsed == row.expected);
  }
}

TEST_CASE("sacct refuses times it cannot read, quoting them", "[cli][sacct][time]") {
  cli_fixtures::useUtc();
  for (const char* text : {"", "yesterdayish", "25:00", "13/01", "2026-13-01", "now+3fortnights", "10:61",
                           "now*2", "uts12x"}) {
    INFO(text);
    auto parsed = parseSacctTime(text, kNow);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(), Catch::Contains(std::string("'") + text + "'"));
  }
}

TEST_CASE("start of today and of yesterday", "[cli][sacct][time]") {
  cli_fixtures::useUtc();
  CHECK(startOfDay(kNow) == utc(2027, 3, 10));
  CHECK(startOfYesterday(kNow) == utc(2027, 3, 9));
  CHECK(startOfYesterday(utc(2027, 3, 1, 8)) == utc(2027, 2, 28));
}

TEST_CASE("--begin forms look ahead where the text leaves the day open", "[cli][begin][time]") {
  cli_fixtures::useUtc();
  struct Row {
    const char* rule;
    const char* text;
    int64_t expected;
  };
  const Row rows[] = {
      {"a time still to come is today", "23:10", utc(2027, 3, 10, 23, 10)},
      {"a time already past is tomorrow", "09:05", utc(2027, 3, 11, 9, 5)},
      {"midnight is the coming one", "midnight", utc(2027, 3, 11)},
      {"teatime still to come is today", "teatime", utc(2027, 3, 10, 16)},
      {"an earlier day without a year is next year's", "0207", utc(2028, 2, 7)},
      {"a later day without a year is this year's", "11/04", utc(2027, 11, 4)},
      {"today's date without a year is today", "0310", utc(2027, 3, 10)},
      {"a day with its year stays as given, past or not", "2026-08-19T06:40", utc(2026, 8, 19, 6, 40)},
      {"now+N hours", "now+1hour", kNow + 3600},
      {"tomorrow with a time word", "tomorrow noon", utc(2027, 3, 11, 12)},
  };
  for (const Row& row : rows) {
    INFO(row.rule << ": " << row.text);
    auto parsed = parseSlurmTime(row.text, kNow, TimeSense::Future);
    REQUIRE(parsed.ok());
    CHECK(*parsed == row.expected);
  }
}
