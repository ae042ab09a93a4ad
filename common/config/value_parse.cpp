#include "common/config/value_parse.h"

#include <algorithm>
#include <cctype>

namespace gantry::config {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Multiplies without wrapping; false on overflow.
bool checkedMultiply(uint64_t a, uint64_t b, uint64_t& out) {
  if (a != 0 && b > UINT64_MAX / a) return false;
  out = a * b;
  return true;
}

}  // namespace

std::string toLower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool icontains(std::string_view haystack, std::string_view needle) {
  return toLower(haystack).find(toLower(needle)) != std::string::npos;
}

std::vector<std::string> splitList(std::string_view text, char separator) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = trim(text.substr(start, end - start));
    if (!item.empty()) items.emplace_back(item);
    start = end + 1;
  }
  return items;
}

Result<bool> parseBool(std::string_view text) {
  std::string lower = toLower(trim(text));
  if (lower == "yes" || lower == "true" || lower == "on" || lower == "1" || lower == "y") return true;
  if (lower == "no" || lower == "false" || lower == "off" || lower == "0" || lower == "n") return false;
  return Error{"\"" + std::string(text) + "\" is not a boolean (expected YES or NO)"};
}

Result<uint64_t> parseUint(std::string_view text, uint64_t max) {
  std::string_view t = trim(text);
  if (t.empty() || !std::all_of(t.begin(), t.end(), isDigit)) {
    return Error{"\"" + std::string(text) + "\" is not a non-negative integer"};
  }
  uint64_t value = 0;
  for (char c : t) {
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return Error{"\"" + std::string(text) + "\" is too large"};
    value = value * 10 + digit;
  }
  if (value > max) return Error{"\"" + std::string(text) + "\" is larger than " + std::to_string(max)};
  return value;
}

Result<uint64_t> parseCount(std::string_view text) {
  std::string_view t = trim(text);
  uint64_t factor = 1;
  if (!t.empty() && !isDigit(t.back())) {
    switch (std::toupper(static_cast<unsigned char>(t.back()))) {
      case 'K': factor = 1ull << 10; break;
      case 'M': factor = 1ull << 20; break;
      case 'G': factor = 1ull << 30; break;
      case 'T': factor = 1ull << 40; break;
      case 'P': factor = 1ull << 50; break;
      default:
        return Error{"\"" + std::string(text) + "\" is not a count (a number with an optional K, M, G, T or P suffix)"};
    }
    t.remove_suffix(1);
  }
  auto base = parseUint(t);
  if (!base) return Error{"\"" + std::string(text) + "\" is not a count (a number with an optional K, M, G, T or P suffix)"};
  uint64_t value = 0;
  if (!checkedMultiply(base.value(), factor, value)) return Error{"\"" + std::string(text) + "\" is too large"};
  return value;
}

Result<uint64_t> parseSizeMb(std::string_view text) {
  std::string_view t = trim(text);
  const std::string rule = "\"" + std::string(text) + "\" is not a size (megabytes, or a number with a K, M, G or T suffix)";
  if (t.empty()) return Error{rule};
  char last = static_cast<char>(std::toupper(static_cast<unsigned char>(t.back())));
  if (isDigit(last)) {
    auto mb = parseUint(t);
    if (!mb) return Error{rule};
    return mb.value();
  }
  t.remove_suffix(1);
  auto base = parseUint(t);
  if (!base) return Error{rule};
  uint64_t value = 0;
  switch (last) {
    case 'K': return (base.value() + 1023) / 1024;
    case 'M': return base.value();
    case 'G':
      if (!checkedMultiply(base.value(), 1024, value)) return Error{"\"" + std::string(text) + "\" is too large"};
      return value;
    case 'T':
      if (!checkedMultiply(base.value(), 1024 * 1024, value)) return Error{"\"" + std::string(text) + "\" is too large"};
      return value;
    default: return Error{rule};
  }
}

Result<int64_t> parseTimeMinutes(std::string_view text) {
  std::string_view t = trim(text);
  if (iequals(t, "infinite") || iequals(t, "unlimited")) return int64_t{-1};
  const std::string rule = "\"" + std::string(text) +
                           "\" is not a time (minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S, or INFINITE)";
  constexpr uint64_t kMaxPart = 100000000;  // keeps the sum far from overflow
  uint64_t days = 0;
  bool hasDays = false;
  std::size_t dash = t.find('-');
  if (dash != std::string_view::npos) {
    auto d = parseUint(t.substr(0, dash), kMaxPart);
    if (!d) return Error{rule};
    days = d.value();
    hasDays = true;
    t = t.substr(dash + 1);
  }
  std::vector<uint64_t> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t colon = t.find(':', start);
    auto part = parseUint(t.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start),
                          kMaxPart);
    if (!part) return Error{rule};
    parts.push_back(part.value());
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  uint64_t seconds = 0;
  if (hasDays) {
    if (parts.size() > 3) return Error{rule};
    uint64_t hours = parts[0];
    uint64_t minutes = parts.size() > 1 ? parts[1] : 0;
    uint64_t secs = parts.size() > 2 ? parts[2] : 0;
    seconds = ((days * 24 + hours) * 60 + minutes) * 60 + secs;
  } else if (parts.size() == 1) {
    seconds = parts[0] * 60;
  } else if (parts.size() == 2) {
    seconds = parts[0] * 60 + parts[1];
  } else if (parts.size() == 3) {
    seconds = (parts[0] * 60 + parts[1]) * 60 + parts[2];
  } else {
    return Error{rule};
  }
  return static_cast<int64_t>((seconds + 59) / 60);
}

Result<std::vector<int>> parseIntRanges(std::string_view text, int max) {
  std::vector<int> values;
  const std::string rule = "\"" + std::string(text) + "\" is not a list of numbers and ranges such as 0-3,8";
  std::vector<std::string> items = splitList(text);
  if (items.empty()) return Error{rule};
  for (const auto& item : items) {
    std::size_t dash = item.find('-');
    auto low = parseUint(std::string_view(item).substr(0, dash), static_cast<uint64_t>(max));
    auto high = dash == std::string::npos ? low : parseUint(std::string_view(item).substr(dash + 1), static_cast<uint64_t>(max));
    if (!low || !high) return Error{rule + " (entries range from 0 to " + std::to_string(max) + ")"};
    if (high.value() < low.value()) return Error{"\"" + std::string(text) + "\" has a reversed range \"" + item + "\""};
    for (uint64_t v = low.value(); v <= high.value(); ++v) values.push_back(static_cast<int>(v));
    if (values.size() > static_cast<std::size_t>(max) + 1) return Error{rule + " (too many entries)"};
  }
  return values;
}

std::string formatIntRanges(const std::vector<int>& values) {
  std::string out;
  std::size_t i = 0;
  while (i < values.size()) {
    std::size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(values[i]);
    if (j > i) out += "-" + std::to_string(values[j]);
    i = j + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

std::string withPluginType(std::string_view name, std::string_view type) {
  std::string lower = toLower(name);
  if (lower.find('/') != std::string::npos) return lower;
  return std::string(type) + "/" + lower;
}

}  // namespace gantry::config
