// Job steps as the views list them (squeue -s, scontrol show step): one row
// per step with the job values the views print beside it, step ids written
// "<job>.<step>", the list of ids that selects steps, and the JSON form.
// Pure: the controller's jobs (with steps) come in, rows come out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/util/result.h"
#include "gantry/v1/types.pb.h"

namespace gantry::cli {

// A step with the job fields the views print beside it.
struct StepRow {
  uint64_t jobId = 0;
  std::string user;
  uint32_t uid = 0;
  std::string partition;
  gantry::v1::JobStep step;
};

// "<job>.<step>" or "<job>" (every step of the job).
struct StepSelector {
  uint64_t jobId = 0;
  std::optional<uint32_t> stepId;
};

// Parses one "42.0" or "42"; nullopt for anything else ("42.", "x.1",
// "42.batch": only numbered steps are kept by the controller).
std::optional<StepSelector> parseStepSelector(const std::string& text);

// A comma-separated list of selectors; the error names `optionName` and
// the bad item. An empty list selects every step.
Result<std::vector<StepSelector>> parseStepList(const std::string& list,
                                                const std::string& optionName);

struct StepSelection {
  std::vector<StepSelector> only;  // empty: every step
  bool runningOnly = false;        // squeue lists running steps only
};

// The steps of `jobs` that `selection` keeps, ordered by job id then step id.
std::vector<StepRow> selectSteps(const std::vector<gantry::v1::Job>& jobs,
                                 const StepSelection& selection);

// "42.0"
std::string stepIdText(const StepRow& row);

// RUNNING while running; once ended COMPLETED (exit 0) or FAILED.
std::string stepStateName(const gantry::v1::JobStep& step);

// Seconds since the step started, up to its end once it ended.
int64_t stepRunSeconds(const gantry::v1::JobStep& step, int64_t now);

// Allocated cores over the step's nodes, else its task count.
int32_t stepCpuCount(const gantry::v1::JobStep& step);

// Nodes in the step's allocation, else in its node list.
int32_t stepNodeCount(const gantry::v1::JobStep& step);

// {"steps": [...]}: each step's proto fields (as --json prints messages)
// plus "id" ("42.0"), "job_id", "user", "partition" and "state".
nlohmann::json stepsToJson(const std::vector<StepRow>& rows);

}  // namespace gantry::cli
