// The job ids of scontrol's job actions (hold, release, suspend, resume):
// each word is one id or a comma list of them ("12", "12,13",
// "JobId=12,13", "job=12", array tasks "12_4" and "12_[1-3,7]"), and every
// id is acted on and reported on its own, as Slurm's scontrol does. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gantry::cli {

struct JobIdItem {
  std::string text;             // as written, for the report
  std::optional<uint64_t> id;   // empty when the text is not a job id
  std::string arrayTasks;       // "4", "1-3,7": these tasks of array `id`
};

// The ids the words name, in order; empty pieces of a list are skipped.
std::vector<JobIdItem> parseJobIdWords(const std::vector<std::string>& words);

// Slurm's line for an id an action failed on: "<why> for job <id>". The
// controller's message may already end with ": <id>", which is dropped
// so the id is not said twice.
std::string jobActionFailure(std::string why, const std::string& id);

}  // namespace gantry::cli
