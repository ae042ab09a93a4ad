// Job array task indexes (sbatch --array): the option's text, and the set
// of indexes it names.
//
// --array takes comma-separated items, each an index ("7"), a range
// ("0-15") or a range with a step ("0-15:4"), and after them an optional
// throttle, "%N": at most N tasks run at once. Every index must be below
// the site's MaxArraySize.
//
// A TaskSet is a bitset with its count, so the pending part of a
// 100,000-task array costs about 12 KB however it is spread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"

namespace gantry {

class TaskSet {
 public:
  // Indexes in --array's form without the throttle; each below `limit`.
  static Result<TaskSet> parse(std::string_view text, uint32_t limit);

  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  bool contains(uint32_t index) const { return index < bits_.size() && bits_[index]; }
  uint32_t first() const;  // the lowest index; the set must not be empty
  uint32_t last() const;   // the highest index; the set must not be empty
  void insert(uint32_t index);
  bool erase(uint32_t index);  // false when it was not there
  std::vector<uint32_t> indexes() const;

  // As Slurm shows a set: "0-96:4" when the whole set is one stepped run
  // (over more than 10 indexes and 5 members), else ranges ("1-3,5,9").
  // parse() reads it back.
  std::string format() const;

  bool operator==(const TaskSet& other) const { return indexes() == other.indexes(); }

 private:
  std::vector<bool> bits_;
  size_t count_ = 0;
  uint32_t lowest_ = 0;  // no index below it is set (a hint; valid when not empty)
};

// What --array asks for: the indexes, and at most how many run at once
// (0: no limit).
struct ArrayRequest {
  TaskSet tasks;
  uint32_t throttle = 0;
};

// "0-99:4%10". Errors name the part that is wrong; an index at or above
// `maxArraySize` is refused with the limit named.
Result<ArrayRequest> parseArrayOption(std::string_view text, uint32_t maxArraySize);

// The environment Slurm gives each task of an array:
// SLURM_ARRAY_TASK_COUNT, _MIN, _MAX (over the whole array) and _STEP (the
// step of the option's first stepped range, else 1).
struct ArrayShape {
  size_t count = 0;
  uint32_t min = 0;
  uint32_t max = 0;
  uint32_t step = 1;
};
ArrayShape arrayShape(std::string_view option, uint32_t maxArraySize);

}  // namespace gantry
