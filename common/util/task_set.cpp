#include "common/util/task_set.h"

#include <string>

#include <charconv>

namespace gantry {
namespace {

// A decimal index, all of `text`; nullopt for anything else (signs,
// spaces, overflow).
std::optional<uint32_t> indexOf(std::string_view text) {
  uint32_t value = 0;
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

Error badItem(std::string_view item, const std::string& why) {
  return Error{ErrorCode::Invalid, "Invalid job array specification: \"" + std::string(item) + "\" " + why};
}

}  // namespace

Result<TaskSet> TaskSet::parse(std::string_view text, uint32_t limit) {
  TaskSet set;
  if (text.empty()) return Error{ErrorCode::Invalid, "Invalid job array specification: no task indexes"};
  size_t at = 0;
  while (at <= text.size()) {
    size_t comma = text.find(',', at);
    std::string_view item = text.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
    at = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) return Error{ErrorCode::Invalid, "Invalid job array specification: an empty item in \"" +
                                                           std::string(text) + "\""};
    std::string_view range = item;
    uint32_t step = 1;
    if (size_t colon = item.find(':'); colon != std::string_view::npos) {
      auto parsed = indexOf(item.substr(colon + 1));
      if (!parsed || *parsed == 0) return badItem(item, "has a step that is not a positive number");
      step = *parsed;
      range = item.substr(0, colon);
    }
    size_t dash = range.find('-');
    auto first = indexOf(range.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : indexOf(range.substr(dash + 1));
    if (!first || !last) return badItem(item, "is not an index, a range or a range with a step");
    if (*last < *first) return badItem(item, "ends before it starts");
    if (dash == std::string_view::npos && step != 1) return badItem(item, "has a step but no range");
    if (*last >= limit) {
      return Error{ErrorCode::Invalid, "Invalid job array specification: index " + std::to_string(*last) +
                                           " is not below MaxArraySize (" + std::to_string(limit) + ")"};
    }
    for (uint64_t index = *first; index <= *last; index += step) set.insert(static_cast<uint32_t>(index));
  }
  return set;
}

uint32_t TaskSet::first() const {
  for (uint32_t i = lowest_; i < bits_.size(); ++i) {
    if (bits_[i]) return i;
  }
  return 0;
}

uint32_t TaskSet::last() const {
  for (size_t i = bits_.size(); i > 0; --i) {
    if (bits_[i - 1]) return static_cast<uint32_t>(i - 1);
  }
  return 0;
}

void TaskSet::insert(uint32_t index) {
  if (index >= bits_.size()) bits_.resize(static_cast<size_t>(index) + 1, false);
  if (bits_[index]) return;
  bits_[index] = true;
  if (count_ == 0 || index < lowest_) lowest_ = index;
  ++count_;
}

bool TaskSet::erase(uint32_t index) {
  if (!contains(index)) return false;
  bits_[index] = false;
  --count_;
  // Tasks start lowest first, so the next one is usually just above.
  if (index == lowest_ && count_ > 0) lowest_ = first();
  if (count_ == 0) {
    bits_.clear();
    lowest_ = 0;
  }
  return true;
}

std::vector<uint32_t> TaskSet::indexes() const {
  std::vector<uint32_t> out;
  out.reserve(count_);
  for (uint32_t i = lowest_; i < bits_.size(); ++i) {
    if (bits_[i]) out.push_back(i);
  }
  return out;
}

std::string TaskSet::format() const {
  if (count_ == 0) return "";
  const uint32_t low = first();
  const uint32_t high = last();
  // One stepped run, as Slurm shows it, when it is long enough to be worth it.
  if (high - low > 10 && count_ > 5 && !contains(low + 1)) {
    uint32_t step = 0;
    uint32_t previous = low;
    bool stepped = true;
    for (uint32_t i = low + 1; i <= high && stepped; ++i) {
      if (!bits_[i]) continue;
      if (step == 0) step = i - previous;
      stepped = i - previous == step;
      previous = i;
    }
    if (stepped) return std::to_string(low) + "-" + std::to_string(high) + ":" + std::to_string(step);
  }
  std::string out;
  for (uint32_t i = low; i <= high; ++i) {
    if (!bits_[i]) continue;
    uint32_t end = i;
    while (end < high && bits_[end + 1]) ++end;
    if (!out.empty()) out += ',';
    out += std::to_string(i);
    if (end > i) out += "-" + std::to_string(end);
    i = end;
  }
  return out;
}

Result<ArrayRequest> parseArrayOption(std::string_view text, uint32_t maxArraySize) {
  ArrayRequest request;
  // Slurm also takes the list in brackets, as squeue prints it: "[0-100]",
  // "[1,3,5-9]%2", "[0-15%4]".
  std::string unbracketed;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string_view::npos || text.find_first_of("[]", close + 1) != std::string_view::npos ||
        text.find('[', 1) < close) {
      return Error{ErrorCode::Invalid,
                   "Invalid job array specification: \"" + std::string(text) + "\" has an unmatched bracket"};
    }
    unbracketed = std::string(text.substr(1, close - 1)) + std::string(text.substr(close + 1));
    text = unbracketed;
  }
  std::string_view indexes = text;
  if (size_t percent = text.find('%'); percent != std::string_view::npos) {
    auto throttle = indexOf(text.substr(percent + 1));
    if (!throttle) {
      return Error{ErrorCode::Invalid, "Invalid job array specification: the throttle \"" +
                                           std::string(text.substr(percent)) + "\" is not %N with N a number"};
    }
    request.throttle = *throttle;
    indexes = text.substr(0, percent);
  }
  auto tasks = TaskSet::parse(indexes, maxArraySize);
  if (!tasks) return Error{tasks.failure()};
  request.tasks = std::move(*tasks);
  return request;
}

ArrayShape arrayShape(std::string_view option, uint32_t maxArraySize) {
  ArrayShape shape;
  auto request = parseArrayOption(option, maxArraySize);
  if (!request || request->tasks.empty()) return shape;
  shape.count = request->tasks.size();
  shape.min = request->tasks.first();
  shape.max = request->tasks.last();
  // As Slurm: the number after the option's first ':'.
  if (size_t colon = option.find(':'); colon != std::string_view::npos) {
    size_t end = option.find_first_not_of("0123456789", colon + 1);
    if (auto step = indexOf(option.substr(colon + 1, end == std::string_view::npos ? end : end - colon - 1))) {
      shape.step = *step;
    }
  }
  return shape;
}

}  // namespace gantry
