// Parsers for the value forms shared by gantry.conf, gres.conf and
// cgroup.conf: booleans, counts, sizes with suffixes, time limits, integer
// range lists. Each returns a Result whose error says which rule the text
// broke; callers add the file, line and key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"

namespace gantry::config {

std::string toLower(std::string_view text);
bool iequals(std::string_view a, std::string_view b);
bool icontains(std::string_view haystack, std::string_view needle);

// Splits at `separator`, dropping empty items and surrounding whitespace.
std::vector<std::string> splitList(std::string_view text, char separator = ',');

// YES/NO, TRUE/FALSE, ON/OFF, 1/0, any case.
Result<bool> parseBool(std::string_view text);

// A non-negative decimal integer no larger than `max`.
Result<uint64_t> parseUint(std::string_view text, uint64_t max = UINT64_MAX);

// A count with an optional K/M/G/T/P suffix, each a factor of 1024
// (GRES counts: "4G" is 4 * 1024^3).
Result<uint64_t> parseCount(std::string_view text);

// A memory size in megabytes: a plain number is megabytes; K, M, G, T
// suffixes convert (K rounds up to a whole megabyte).
Result<uint64_t> parseSizeMb(std::string_view text);

// A time limit in minutes: "INFINITE"/"UNLIMITED" (-1), "M", "M:S",
// "H:M:S", "D-H", "D-H:M", "D-H:M:S". Seconds round up to a minute.
Result<int64_t> parseTimeMinutes(std::string_view text);

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}. Entries must be non-negative and no
// larger than `max`.
Result<std::vector<int>> parseIntRanges(std::string_view text, int max = 1 << 20);

// The inverse of parseIntRanges for sorted lists: {0,1,2,5} -> "0-2,5".
std::string formatIntRanges(const std::vector<int>& values);

// Joins with `separator`.
std::string join(const std::vector<std::string>& items, std::string_view separator);

// A plugin name in its full spelling, lower case: "cgroup" and
// "task/cgroup" both give "task/cgroup" for type "task". A name with another
// type ("proctrack/cgroup" for "task") is kept, so that it is refused by name.
std::string withPluginType(std::string_view name, std::string_view type);

}  // namespace gantry::config
