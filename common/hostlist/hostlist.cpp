#include "common/hostlist/hostlist.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>

namespace gantry::hostlist {
namespace {

// Numbers longer than this could overflow uint64_t; no real host or device
// index needs them.
constexpr std::size_t kMaxDigits = 18;

struct Range {
  uint64_t low = 0;
  uint64_t high = 0;
  std::size_t width = 0;  // zero-pad to this many digits
};

// One element's pieces: literal text and bracket groups, alternating.
struct Piece {
  std::string literal;       // used when ranges is empty
  std::vector<Range> ranges;  // a bracket group
};

Error failure(std::string_view expr, const std::string& rule) {
  return Error{"hostlist \"" + std::string(expr) + "\": " + rule};
}

bool isSeparator(char c) { return c == ',' || std::isspace(static_cast<unsigned char>(c)); }

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Result<uint64_t> parseBound(std::string_view expr, std::string_view text) {
  if (!allDigits(text)) return failure(expr, "range bound \"" + std::string(text) + "\" is not a number");
  if (text.size() > kMaxDigits) return failure(expr, "range bound \"" + std::string(text) + "\" is too long");
  uint64_t value = 0;
  for (char c : text) value = value * 10 + static_cast<uint64_t>(c - '0');
  return value;
}

// Parses the inside of one bracket: "0-3,7,09-11".
Result<std::vector<Range>> parseBracket(std::string_view expr, std::string_view inside) {
  std::vector<Range> ranges;
  if (inside.empty()) return failure(expr, "empty brackets \"[]\"");
  std::size_t start = 0;
  while (start <= inside.size()) {
    std::size_t comma = inside.find(',', start);
    if (comma == std::string_view::npos) comma = inside.size();
    std::string_view part = inside.substr(start, comma - start);
    if (part.empty()) return failure(expr, "empty range inside brackets");
    std::size_t dash = part.find('-');
    std::string_view lowText = part.substr(0, dash);
    std::string_view highText = dash == std::string_view::npos ? lowText : part.substr(dash + 1);
    auto low = parseBound(expr, lowText);
    if (!low) return Error{low.error()};
    auto high = parseBound(expr, highText);
    if (!high) return Error{high.error()};
    if (*high < *low) {
      return failure(expr, "reversed range \"" + std::string(part) + "\" (the first bound must not exceed the second)");
    }
    if (*high - *low >= kMaxExpandedNames) {
      return failure(expr, "range \"" + std::string(part) + "\" has more than " +
                               std::to_string(kMaxExpandedNames) + " entries");
    }
    ranges.push_back(Range{*low, *high, lowText.size()});
    start = comma + 1;
  }
  return ranges;
}

Result<std::vector<Piece>> parseElement(std::string_view expr, std::string_view element) {
  std::vector<Piece> pieces;
  std::string literal;
  std::size_t i = 0;
  while (i < element.size()) {
    char c = element[i];
    if (c == ']') return failure(expr, "unbalanced brackets (']' without '[')");
    if (c != '[') {
      literal.push_back(c);
      ++i;
      continue;
    }
    std::size_t close = element.find(']', i + 1);
    if (close == std::string_view::npos) return failure(expr, "unbalanced brackets ('[' without ']')");
    std::string_view inside = element.substr(i + 1, close - i - 1);
    if (inside.find('[') != std::string_view::npos) return failure(expr, "nested brackets are not allowed");
    auto ranges = parseBracket(expr, inside);
    if (!ranges) return Error{ranges.error()};
    if (!literal.empty()) pieces.push_back(Piece{std::move(literal), {}});
    literal.clear();
    pieces.push_back(Piece{"", std::move(ranges.value())});
    i = close + 1;
  }
  if (!literal.empty()) pieces.push_back(Piece{std::move(literal), {}});
  return pieces;
}

std::string padded(uint64_t value, std::size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

uint64_t countOf(const std::vector<Range>& ranges) {
  uint64_t total = 0;
  for (const auto& r : ranges) total += r.high - r.low + 1;
  return total;
}

// Appends every combination of the pieces to `out`, leftmost group slowest.
void emitProduct(const std::vector<Piece>& pieces, std::size_t index, std::string& prefix,
                 std::vector<std::string>& out) {
  if (index == pieces.size()) {
    out.push_back(prefix);
    return;
  }
  const Piece& piece = pieces[index];
  std::size_t keep = prefix.size();
  if (piece.ranges.empty()) {
    prefix += piece.literal;
    emitProduct(pieces, index + 1, prefix, out);
  } else {
    for (const auto& range : piece.ranges) {
      for (uint64_t v = range.low;; ++v) {
        prefix += padded(v, range.width);
        emitProduct(pieces, index + 1, prefix, out);
        prefix.resize(keep);
        if (v == range.high) break;
      }
    }
  }
  prefix.resize(keep);
}

// Splits at separators that are outside brackets.
std::vector<std::string_view> splitElements(std::string_view expr) {
  std::vector<std::string_view> elements;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= expr.size(); ++i) {
    bool end = i == expr.size();
    if (!end && expr[i] == '[') ++depth;
    if (!end && expr[i] == ']') --depth;
    if (end || (depth <= 0 && isSeparator(expr[i]))) {
      if (i > start) elements.push_back(expr.substr(start, i - start));
      start = i + 1;
      if (depth < 0) depth = 0;
    }
  }
  return elements;
}

}  // namespace

Result<std::vector<std::string>> expand(std::string_view expr) {
  std::vector<std::string> names;
  for (std::string_view element : splitElements(expr)) {
    auto pieces = parseElement(expr, element);
    if (!pieces) return Error{pieces.error()};
    uint64_t combinations = 1;
    for (const auto& piece : pieces.value()) {
      if (piece.ranges.empty()) continue;
      combinations *= countOf(piece.ranges);
      if (combinations > kMaxExpandedNames) break;
    }
    if (names.size() + combinations > kMaxExpandedNames) {
      return failure(expr, "expands to more than " + std::to_string(kMaxExpandedNames) + " names");
    }
    std::string prefix;
    emitProduct(pieces.value(), 0, prefix, names);
  }
  return names;
}

namespace {

struct SplitName {
  std::string prefix;
  std::string digits;  // trailing digits; empty when the name ends otherwise
};

SplitName splitTrailingNumber(const std::string& name) {
  std::size_t end = name.size();
  std::size_t start = end;
  while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
  if (end - start > kMaxDigits) start = end - kMaxDigits;
  return SplitName{name.substr(0, start), name.substr(start)};
}

bool hasLeadingZero(const std::string& digits) { return digits.size() > 1 && digits[0] == '0'; }

// Numbers of one prefix that print with the same zero padding.
struct Group {
  std::string prefix;
  std::size_t width = 0;  // 0: natural width
  std::set<uint64_t> values;
};

std::string formatGroup(const Group& group) {
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  for (uint64_t v : group.values) {
    if (!runs.empty() && runs.back().second + 1 == v) {
      runs.back().second = v;
    } else {
      runs.emplace_back(v, v);
    }
  }
  if (runs.size() == 1 && runs[0].first == runs[0].second) {
    return group.prefix + padded(runs[0].first, group.width);
  }
  std::string out = group.prefix + "[";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i > 0) out += ",";
    out += padded(runs[i].first, group.width);
    if (runs[i].second != runs[i].first) out += "-" + padded(runs[i].second, group.width);
  }
  return out + "]";
}

}  // namespace

std::string compress(const std::vector<std::string>& names) {
  // Padded numbers first fix the widths in use per prefix, so a natural
  // number of the same length ("10" next to "01".."09") joins their group.
  std::map<std::string, std::set<std::size_t>> paddedWidths;
  for (const auto& name : names) {
    SplitName split = splitTrailingNumber(name);
    if (hasLeadingZero(split.digits)) paddedWidths[split.prefix].insert(split.digits.size());
  }

  std::vector<Group> groups;
  std::unordered_map<std::string, std::size_t> groupIndex;
  std::vector<std::string> plainNames;  // no trailing number
  std::set<std::string> seenPlain;
  std::vector<std::pair<bool, std::size_t>> order;  // (isGroup, index) by first appearance

  for (const auto& name : names) {
    SplitName split = splitTrailingNumber(name);
    if (split.digits.empty()) {
      if (seenPlain.insert(name).second) {
        order.emplace_back(false, plainNames.size());
        plainNames.push_back(name);
      }
      continue;
    }
    std::size_t width = 0;
    if (hasLeadingZero(split.digits)) {
      width = split.digits.size();
    } else {
      auto it = paddedWidths.find(split.prefix);
      if (it != paddedWidths.end() && it->second.count(split.digits.size())) width = split.digits.size();
    }
    std::string key = split.prefix + '\0' + std::to_string(width);
    auto [it, inserted] = groupIndex.emplace(key, groups.size());
    if (inserted) {
      groups.push_back(Group{split.prefix, width, {}});
      order.emplace_back(true, groups.size() - 1);
    }
    uint64_t value = 0;
    for (char c : split.digits) value = value * 10 + static_cast<uint64_t>(c - '0');
    groups[it->second].values.insert(value);
  }

  std::string out;
  for (const auto& [isGroup, index] : order) {
    if (!out.empty()) out += ",";
    out += isGroup ? formatGroup(groups[index]) : plainNames[index];
  }
  return out;
}

std::string compressInOrder(const std::vector<std::string>& names) {
  std::string out;
  std::string prefix;
  std::size_t width = 0;
  std::vector<std::pair<uint64_t, uint64_t>> runs;  // of the open group
  bool open = false;

  auto flush = [&] {
    if (!open) return;
    if (!out.empty()) out += ",";
    if (runs.size() == 1 && runs[0].first == runs[0].second) {
      out += prefix + padded(runs[0].first, width);
    } else {
      out += prefix + "[";
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (i > 0) out += ",";
        out += padded(runs[i].first, width);
        if (runs[i].second != runs[i].first) out += "-" + padded(runs[i].second, width);
      }
      out += "]";
    }
    runs.clear();
    open = false;
  };

  for (const auto& name : names) {
    SplitName split = splitTrailingNumber(name);
    if (split.digits.empty()) {
      flush();
      if (!out.empty()) out += ",";
      out += name;
      continue;
    }
    std::size_t nameWidth = hasLeadingZero(split.digits) ? split.digits.size() : 0;
    bool fits = open && split.prefix == prefix &&
                (nameWidth == width || (nameWidth == 0 && width == split.digits.size()));
    if (!fits) {
      flush();
      prefix = split.prefix;
      width = nameWidth;
      open = true;
    }
    uint64_t value = 0;
    for (char c : split.digits) value = value * 10 + static_cast<uint64_t>(c - '0');
    if (!runs.empty() && runs.back().second + 1 == value && runs.back().second != UINT64_MAX) {
      runs.back().second = value;
    } else {
      runs.emplace_back(value, value);
    }
  }
  flush();
  return out;
}

namespace {

// Negative, zero or positive as `a` sorts before, with or after `b`, runs of
// digits compared by value so "rack2" comes before "rack10".
int naturalCompare(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    bool digitA = a[i] >= '0' && a[i] <= '9';
    bool digitB = b[j] >= '0' && b[j] <= '9';
    if (digitA && digitB) {
      std::size_t endA = i, endB = j;
      while (endA < a.size() && a[endA] >= '0' && a[endA] <= '9') ++endA;
      while (endB < b.size() && b[endB] >= '0' && b[endB] <= '9') ++endB;
      std::string_view runA = a.substr(i, endA - i), runB = b.substr(j, endB - j);
      while (runA.size() > 1 && runA.front() == '0') runA.remove_prefix(1);
      while (runB.size() > 1 && runB.front() == '0') runB.remove_prefix(1);
      if (runA.size() != runB.size()) return runA.size() < runB.size() ? -1 : 1;
      if (int c = runA.compare(runB); c != 0) return c;
      i = endA;
      j = endB;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
    ++i;
    ++j;
  }
  if (i < a.size()) return 1;
  if (j < b.size()) return -1;
  return 0;
}

}  // namespace

std::vector<std::string> sortNames(std::vector<std::string> names) {
  std::stable_sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    SplitName left = splitTrailingNumber(a), right = splitTrailingNumber(b);
    if (int c = naturalCompare(left.prefix, right.prefix); c != 0) return c < 0;
    if (left.digits.empty() != right.digits.empty()) return left.digits.empty();
    // Fewer digits first: a smaller number, or a narrower zero padding
    // (which never shares a bracket with a wider one).
    if (left.digits.size() != right.digits.size()) return left.digits.size() < right.digits.size();
    return left.digits < right.digits;
  });
  return names;
}

Result<std::string> formatHostnames(std::string_view expr) {
  auto names = expand(expr);
  if (!names) return Error{names.error()};
  std::string out;
  for (const auto& name : names.value()) out += name + "\n";
  return out;
}

}  // namespace gantry::hostlist
