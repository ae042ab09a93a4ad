#include "cli/sacct_time.h"

#include <cctype>
#include <ctime>
#include <optional>
#include <string_view>

namespace gantry::cli {
namespace {

struct Parsed {
  int hour = -1, minute = -1, second = 0;
  int month = -1, day = -1, year = -1;  // month 0-11, year since 1900
};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::tm localOf(int64_t when) {
  auto seconds = static_cast<time_t>(when);
  std::tm tm{};
  localtime_r(&seconds, &tm);
  return tm;
}

int64_t makeLocal(std::tm tm) {
  tm.tm_isdst = -1;
  return static_cast<int64_t>(std::mktime(&tm));
}

// Reads up to `most` digits at text[pos]; nullopt when there is none.
std::optional<int> digits(std::string_view text, size_t& pos, size_t most) {
  size_t start = pos;
  int value = 0;
  while (pos < text.size() && pos - start < most && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    value = value * 10 + (text[pos++] - '0');
  }
  if (pos == start) return std::nullopt;
  return value;
}

// HH:MM[:SS] [AM|PM]
bool readClock(std::string_view text, size_t& pos, Parsed& out) {
  auto hour = digits(text, pos, 2);
  if (!hour || pos >= text.size() || text[pos] != ':') return false;
  ++pos;
  auto minute = digits(text, pos, 2);
  if (!minute || *minute > 59) return false;
  int second = 0;
  if (pos < text.size() && text[pos] == ':') {
    ++pos;
    auto read = digits(text, pos, 2);
    if (!read || *read > 59) return false;
    second = *read;
  }
  size_t blank = pos;
  while (blank < text.size() && text[blank] == ' ') ++blank;
  std::string rest = lower(text.substr(blank, 2));
  int h = *hour;
  if (rest == "am" || rest == "pm") {
    if (h < 1 || h > 12) return false;
    h = (h % 12) + (rest == "pm" ? 12 : 0);
    pos = blank + 2;
  }
  if (h > 23) return false;
  out.hour = h;
  out.minute = *minute;
  out.second = second;
  return true;
}

// YYYY-MM-DD, MMDD[YY], MM/DD[/YY], MM.DD[.YY]
bool readDate(std::string_view text, size_t& pos, Parsed& out) {
  size_t start = pos;
  auto first = digits(text, pos, 4);
  if (!first) return false;
  int month = 0, day = 0, year = -1;
  if (pos - start == 4 && pos < text.size() && text[pos] == '-') {  // YYYY-MM-DD
    ++pos;
    auto m = digits(text, pos, 2);
    if (!m || pos >= text.size() || text[pos] != '-') return false;
    ++pos;
    auto d = digits(text, pos, 2);
    if (!d) return false;
    year = *first - 1900, month = *m, day = *d;
  } else if (pos - start == 4) {  // MMDD[YY]
    month = *first / 100, day = *first % 100;
    if (auto yy = digits(text, pos, 2)) year = *yy + 100;
  } else if (pos - start <= 2 && pos < text.size() && (text[pos] == '/' || text[pos] == '.')) {
    char separator = text[pos++];
    auto d = digits(text, pos, 2);
    if (!d) return false;
    month = *first, day = *d;
    if (pos < text.size() && text[pos] == separator) {
      ++pos;
      auto yy = digits(text, pos, 2);
      if (!yy) return false;
      year = *yy + 100;
    }
  } else {
    return false;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  out.month = month - 1;
  out.day = day;
  out.year = year;
  return true;
}

// "+N[unit]" or "-N[unit]" after "now"; seconds by default.
std::optional<int64_t> readDelta(std::string_view text, size_t& pos) {
  if (pos >= text.size()) return 0;
  int sign = text[pos] == '-' ? -1 : (text[pos] == '+' ? 1 : 0);
  if (sign == 0) return std::nullopt;
  ++pos;
  auto count = digits(text, pos, 9);
  if (!count) return std::nullopt;
  std::string unit = lower(text.substr(pos));
  pos = text.size();
  int64_t scale = 0;
  for (auto [name, seconds] : {std::pair{"seconds", 1}, std::pair{"minutes", 60}, std::pair{"hours", 3600},
                               std::pair{"days", 86400}, std::pair{"weeks", 604800}}) {
    std::string_view full(name);
    // The unit may be written in full, singular, or shortened to its first
    // letters ("min", "h"), as long as what is written begins the word.
    if (unit.empty() || (full.substr(0, unit.size()) == unit)) {
      scale = seconds;
      break;
    }
  }
  if (scale == 0) return std::nullopt;
  return sign * static_cast<int64_t>(*count) * scale;
}

struct Word {
  const char* name;
  int hour;  // -1: a day word
  int dayOffset;
};
constexpr Word kWords[] = {{"today", -1, 0},     {"tomorrow", -1, 1}, {"midnight", 0, 0}, {"noon", 12, 0},
                           {"elevenses", 11, 0}, {"fika", 15, 0},     {"teatime", 16, 0}};

}  // namespace

int64_t startOfDay(int64_t now) {
  std::tm tm = localOf(now);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  return makeLocal(tm);
}

int64_t startOfYesterday(int64_t now) {
  std::tm tm = localOf(now);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  tm.tm_mday -= 1;
  return makeLocal(tm);
}

Result<int64_t> parseSacctTime(const std::string& text, int64_t now) {
  return parseSlurmTime(text, now, TimeSense::Past);
}

Result<int64_t> parseSlurmTime(const std::string& text, int64_t now, TimeSense sense) {
  Error invalid{"invalid time '" + text +
                "' (HH:MM[:SS], MMDD[YY], MM/DD[/YY], MM.DD[.YY], YYYY-MM-DD[THH:MM[:SS]], "
                "now[{+|-}N[seconds|minutes|hours|days|weeks]], today, tomorrow, midnight, noon, ...)"};
  std::string_view in(text);
  if (lower(in.substr(0, 3)) == "uts") {
    size_t pos = 3;
    auto value = digits(in, pos, 12);
    if (!value || pos != in.size()) return invalid;
    return static_cast<int64_t>(*value);
  }
  std::tm today = localOf(now);
  Parsed parsed;
  bool any = false;
  size_t pos = 0;
  while (pos < in.size()) {
    char c = in[pos];
    std::string rest = lower(in.substr(pos));
    bool matched = false;
    for (const Word& word : kWords) {
      std::string_view name(word.name);
      if (rest.compare(0, name.size(), name) != 0) continue;
      if (word.hour < 0) {
        std::tm day = localOf(now + word.dayOffset * 86400);
        parsed.month = day.tm_mon, parsed.day = day.tm_mday, parsed.year = day.tm_year;
      } else {
        parsed.hour = word.hour, parsed.minute = 0, parsed.second = 0;
      }
      pos += name.size();
      matched = true;
      break;
    }
    if (!matched && (c == ' ' || c == '-' || c == 'T')) {  // between a date and its time
      ++pos;
      continue;
    }
    if (!matched && rest.compare(0, 3, "now") == 0) {
      pos += 3;
      auto delta = readDelta(in, pos);
      if (!delta) return invalid;
      std::tm then = localOf(now + *delta);
      parsed = Parsed{.hour = then.tm_hour, .minute = then.tm_min, .second = then.tm_sec,
                      .month = then.tm_mon, .day = then.tm_mday, .year = then.tm_year};
      matched = true;
    }
    if (!matched && std::isdigit(static_cast<unsigned char>(c))) {
      bool clock = (pos + 1 < in.size() && in[pos + 1] == ':') || (pos + 2 < in.size() && in[pos + 2] == ':');
      matched = clock ? readClock(in, pos, parsed) : readDate(in, pos, parsed);
    }
    if (!matched) return invalid;
    any = true;
  }
  if (!any) return invalid;
  bool timeAlone = parsed.month < 0;
  if (timeAlone) {  // a time alone: today (tomorrow, looking ahead, once it has passed)
    parsed.month = today.tm_mon, parsed.day = today.tm_mday, parsed.year = today.tm_year;
  }
  if (parsed.hour < 0) parsed.hour = 0, parsed.minute = 0, parsed.second = 0;
  if (parsed.year < 0) {
    // A day without a year is the nearest one on the side looked at.
    if (sense == TimeSense::Past) {
      parsed.year = parsed.month > today.tm_mon ? today.tm_year - 1 : today.tm_year;
    } else {
      bool earlier = parsed.month < today.tm_mon || (parsed.month == today.tm_mon && parsed.day < today.tm_mday);
      parsed.year = earlier ? today.tm_year + 1 : today.tm_year;
    }
  }
  std::tm when{};
  when.tm_year = parsed.year;
  when.tm_mon = parsed.month;
  when.tm_mday = parsed.day;
  when.tm_hour = parsed.hour;
  when.tm_min = parsed.minute;
  when.tm_sec = parsed.second;
  int64_t result = makeLocal(when);
  if (timeAlone && sense == TimeSense::Future && result < now) {
    when.tm_mday += 1;
    result = makeLocal(when);
  }
  return result;
}

}  // namespace gantry::cli
