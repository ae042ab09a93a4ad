// The times Slurm's commands accept (local time): sacct's -S/-E and
// sacctmgr's Start=/End= look into the past, --begin and StartTime= ahead.
// They differ only where the text leaves the day open: a time alone is
// today (ahead: tomorrow once it has passed), a day without a year is the
// nearest such day behind (ahead: in front of) today.
//
//   HH:MM[:SS] [AM|PM]           today at that time
//   MMDD[YY], MM/DD[/YY], MM.DD[.YY]   that day at 00:00; without a year,
//                                this year, or last year for a later month
//   MM/DD[/YY]-HH:MM[:SS]        that day at that time
//   YYYY-MM-DD[THH:MM[:SS]]
//   now[{+|-}N[seconds|minutes|hours|days|weeks]]   (seconds by default)
//   today, tomorrow (00:00 of that day); midnight, elevenses, noon, fika,
//   teatime (00:00, 11:00, 12:00, 15:00, 16:00 today); a day word and a
//   time word combine ("tomorrow noon")
//   uts<seconds since the epoch>
#pragma once

#include <cstdint>
#include <string>

#include "common/util/result.h"

namespace gantry::cli {

enum class TimeSense { Past, Future };

// Seconds since the epoch. Invalid, quoting the text, for anything else.
Result<int64_t> parseSlurmTime(const std::string& text, int64_t now, TimeSense sense);
// parseSlurmTime looking into the past.
Result<int64_t> parseSacctTime(const std::string& text, int64_t now);

// 00:00 local time of the day `now` falls in, and of the day before.
int64_t startOfDay(int64_t now);
int64_t startOfYesterday(int64_t now);

}  // namespace gantry::cli
