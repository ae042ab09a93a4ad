#include "cli/parse_units.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <string_view>

namespace gantry::cli {
namespace {

bool allDigits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// Parses a decimal number made only of digits; nullopt-like failure via bool.
bool toUnsigned(std::string_view text, uint64_t& out) {
  if (!allDigits(text)) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// A GRES count: digits with an optional K, M, G, T or P suffix, each a
// factor of 1024, as gres.conf and gantry.conf write counts ("4G"), so a
// request can ask for what Gres= offers. False when it is not one or overflows.
bool toGresCount(std::string_view text, uint64_t& out) {
  uint64_t factor = 1;
  if (!text.empty() && !std::isdigit(static_cast<unsigned char>(text.back()))) {
    static constexpr std::string_view kSuffixes = "KMGTP";
    size_t power = kSuffixes.find(static_cast<char>(std::toupper(static_cast<unsigned char>(text.back()))));
    if (power == std::string_view::npos) return false;
    factor = uint64_t{1} << (10 * (power + 1));
    text.remove_suffix(1);
  }
  uint64_t base = 0;
  if (!toUnsigned(text, base) || base > std::numeric_limits<uint64_t>::max() / factor) return false;
  out = base * factor;
  return true;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = text.find(sep, start);
    parts.push_back(text.substr(start, pos == std::string_view::npos ? pos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

Error timeError(const std::string& text) {
  return Error{"invalid time limit '" + text +
               "': expected minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED"};
}

}  // namespace

Result<int64_t> parseTimeLimitSeconds(const std::string& text) {
  std::string word = upper(text);
  if (word == "UNLIMITED" || word == "INFINITE" || word == "-1") return kUnlimitedSeconds;

  uint64_t days = 0;
  std::string_view clock = text;
  size_t dash = clock.find('-');
  bool hasDays = dash != std::string_view::npos;
  if (hasDays) {
    if (!toUnsigned(clock.substr(0, dash), days)) return timeError(text);
    clock = clock.substr(dash + 1);
  }
  std::vector<std::string_view> parts = split(clock, ':');
  if (parts.size() > 3) return timeError(text);
  std::vector<uint64_t> numbers;
  for (std::string_view part : parts) {
    uint64_t n = 0;
    if (!toUnsigned(part, n)) return timeError(text);
    numbers.push_back(n);
  }

  uint64_t hours = 0, minutes = 0, seconds = 0;
  if (hasDays) {
    // With a day count the first field is hours: D-H, D-H:M, D-H:M:S.
    hours = numbers[0];
    if (numbers.size() > 1) minutes = numbers[1];
    if (numbers.size() > 2) seconds = numbers[2];
  } else if (numbers.size() == 1) {
    minutes = numbers[0];
  } else if (numbers.size() == 2) {
    minutes = numbers[0];
    seconds = numbers[1];
  } else {
    hours = numbers[0];
    minutes = numbers[1];
    seconds = numbers[2];
  }
  constexpr uint64_t kLimit = uint64_t{1} << 40;
  if (days > kLimit || hours > kLimit || minutes > kLimit || seconds > kLimit) {
    return Error{"invalid time limit '" + text + "': value too large"};
  }
  uint64_t total = ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
  return static_cast<int64_t>(total);
}

Result<int64_t> parseTimeLimitMinutes(const std::string& text) {
  auto seconds = parseTimeLimitSeconds(text);
  if (!seconds) return Error{seconds.error()};
  if (*seconds == kUnlimitedSeconds) return kUnlimitedMinutes;
  return (*seconds + 59) / 60;
}

Result<uint64_t> parseMemoryMb(const std::string& text) {
  std::string_view digits = text;
  uint64_t divisorKb = 0;  // when set, the number is in KB and rounds up
  uint64_t multiplier = 1;
  if (!digits.empty() && std::isalpha(static_cast<unsigned char>(digits.back()))) {
    char suffix = static_cast<char>(std::toupper(static_cast<unsigned char>(digits.back())));
    digits.remove_suffix(1);
    switch (suffix) {
      case 'K': divisorKb = 1024; break;
      case 'M': multiplier = 1; break;
      case 'G': multiplier = 1024; break;
      case 'T': multiplier = 1024 * 1024; break;
      default:
        return Error{"invalid size '" + text + "': unit must be K, M, G or T"};
    }
  }
  uint64_t number = 0;
  if (!toUnsigned(digits, number)) {
    return Error{"invalid size '" + text + "': expected a whole number with optional K, M, G or T"};
  }
  if (divisorKb != 0) return (number + divisorKb - 1) / divisorKb;
  if (number > std::numeric_limits<uint64_t>::max() / multiplier) {
    return Error{"invalid size '" + text + "': value too large"};
  }
  return number * multiplier;
}

Result<int32_t> parseCount(const std::string& text, bool allowZero) {
  uint64_t n = 0;
  if (!toUnsigned(text, n) || n > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return Error{"invalid count '" + text + "': expected a whole number"};
  }
  if (n == 0 && !allowZero) return Error{"invalid count '" + text + "': must be at least 1"};
  return static_cast<int32_t>(n);
}

// A node count as Slurm reads one: a whole number, optionally ending in
// k or m for 1024 or 1024*1024 nodes (-N 1k).
static Result<int32_t> parseNodeCount(const std::string& text) {
  if (text.size() < 2) return parseCount(text);
  char last = static_cast<char>(std::tolower(static_cast<unsigned char>(text.back())));
  int64_t factor = last == 'k' ? 1024 : last == 'm' ? 1024 * 1024 : 1;
  if (factor == 1) return parseCount(text);
  auto base = parseCount(text.substr(0, text.size() - 1));
  if (!base) return base;
  if (*base * factor > std::numeric_limits<int32_t>::max()) {
    return Error{"invalid count '" + text + "': too large"};
  }
  return static_cast<int32_t>(*base * factor);
}

Result<NodeRange> parseNodeRange(const std::string& text) {
  size_t dash = text.find('-');
  NodeRange range;
  auto first = parseNodeCount(text.substr(0, dash));
  if (!first) return Error{"invalid node count '" + text + "': expected N or MIN-MAX"};
  range.min = *first;
  if (dash == std::string::npos) return range;
  auto second = parseNodeCount(text.substr(dash + 1));
  if (!second) return Error{"invalid node count '" + text + "': expected N or MIN-MAX"};
  if (*second < range.min) {
    return Error{"invalid node count '" + text + "': maximum is below minimum"};
  }
  range.max = *second;
  return range;
}

// Slurm's words lead, as scripts grep for them; the rest says what is wrong.
constexpr const char* kInvalidGres = "Invalid generic resource (gres) specification: '";

Result<std::vector<GresItem>> parseGresList(const std::string& text) {
  std::vector<GresItem> items;
  for (std::string_view entry : split(text, ',')) {
    std::vector<std::string_view> fields = split(entry, ':');
    if (entry.empty() || fields.size() > 3 || fields[0].empty()) {
      return Error{kInvalidGres + std::string(entry) + "' in '" + text +
                   "': expected name[:type][:count]"};
    }
    GresItem item;
    item.name = std::string(fields[0]);
    // The last field is the count when it is a number (with an optional
    // K/M/G/T/P suffix); otherwise it is a type.
    if (fields.size() >= 2) {
      uint64_t count = 0;
      bool lastIsCount = toGresCount(fields.back(), count);
      if (fields.size() == 3 && !lastIsCount) {
        return Error{kInvalidGres + std::string(entry) + "': count '" + std::string(fields.back()) +
                     "' is not a number (a count may end in K, M, G, T or P)"};
      }
      if (lastIsCount) {
        if (count == 0) {
          return Error{kInvalidGres + std::string(entry) + "': count must be at least 1"};
        }
        item.count = count;
        if (fields.size() == 3) item.type = std::string(fields[1]);
      } else {
        item.type = std::string(fields[1]);
      }
      if (fields.size() == 3 && fields[1].empty()) {
        return Error{kInvalidGres + std::string(entry) + "': empty type"};
      }
    }
    items.push_back(std::move(item));
  }
  return items;
}

Result<GpuCount> parseGpuCount(const std::string& text) {
  GpuCount gpus;
  std::string countText = text;
  size_t colon = text.rfind(':');
  if (colon != std::string::npos) {
    gpus.type = text.substr(0, colon);
    countText = text.substr(colon + 1);
    if (gpus.type.empty() || gpus.type.find(':') != std::string::npos) {
      return Error{"invalid GPU count '" + text + "': expected [type:]N"};
    }
  }
  // 0 asks for none, as in Slurm: a step of a GPU job that wants no GPU.
  auto count = parseCount(countText, /*allowZero=*/true);
  if (!count) return Error{"invalid GPU count '" + text + "': expected [type:]N, N a whole number"};
  gpus.count = *count;
  return gpus;
}

Result<int32_t> parseNice(const std::string& text) {
  long long nice = 0;
  size_t used = 0;
  try {
    nice = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || nice < -2147483645LL || nice > 2147483645LL) {
    return Error{"Invalid nice value \"" + text + "\" (an integer from -2147483645 to 2147483645)"};
  }
  return static_cast<int32_t>(nice);
}

}  // namespace gantry::cli
