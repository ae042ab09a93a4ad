// How Slurm's client commands print times, so scripts that parse them keep
// working: elapsed and limit durations, and local timestamps.
#pragma once

#include <cstdint>
#include <string>

namespace gantry::cli {

// squeue's TIME column: "M:SS", "H:MM:SS", or "D-HH:MM:SS".
std::string formatElapsedShort(int64_t seconds);

// scontrol's RunTime/TimeLimit: "HH:MM:SS" or "D-HH:MM:SS".
std::string formatElapsedLong(int64_t seconds);

// A limit in minutes as squeue/sinfo print it: "UNLIMITED"-style word for
// a negative value (the caller picks the word), otherwise formatElapsedShort.
std::string formatLimitMinutes(int64_t minutes, const std::string& unlimitedWord);

// The line squeue -l and sinfo -l print first: local "Fri Dec 04 05:06:04 2026".
std::string longListingDateLine(int64_t unixSeconds);

// Unix seconds as local "YYYY-MM-DDTHH:MM:SS"; `zeroWord` when zero.
std::string formatTimestamp(int64_t unixSeconds, const std::string& zeroWord);

}  // namespace gantry::cli
