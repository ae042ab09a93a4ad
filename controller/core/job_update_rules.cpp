#include "controller/core/job_update_rules.h"

namespace gantry::core {
namespace {

constexpr const char* kDenied = "Access/permission denied";

// Whether `minutes` (-1: UNLIMITED) is longer than `seconds` (-1: UNLIMITED).
bool longer(int64_t minutes, int64_t seconds) {
  if (seconds < 0) return false;
  if (minutes < 0) return true;
  return minutes * 60 > seconds;
}

}  // namespace

Status checkJobUpdate(const v1::UpdateJobRequest& request, const JobUpdateFacts& facts) {
  if (!facts.owner && !facts.admin) return Error{ErrorCode::Denied, kDenied};
  if (facts.ended) return Error{ErrorCode::Invalid, "Job has already finished"};
  if (request.has_priority() && !facts.admin) return Error{ErrorCode::Denied, kDenied};
  if (request.has_nice()) {
    if (request.nice() < -2147483645 || request.nice() > 2147483645) {
      return Error{ErrorCode::Invalid, "Invalid nice value: " + std::to_string(request.nice())};
    }
    if (request.nice() < 0 && !facts.admin) return Error{ErrorCode::Denied, kDenied};
  }
  if (request.has_time_limit_minutes()) {
    if (request.time_limit_minutes() < -1) {
      return Error{ErrorCode::Invalid, "Requested time limit is invalid (missing or exceeds some limit)"};
    }
    if (!facts.admin && longer(request.time_limit_minutes(), facts.timeLimitSeconds)) {
      return Error{ErrorCode::Denied, kDenied};
    }
  }
  if ((request.has_partition() || request.has_num_nodes() || request.has_gres_per_node() ||
       request.has_dependency() || request.has_begin_time() || request.has_nice()) &&
      !facts.pending) {
    return Error{ErrorCode::NotNow, "Job is no longer pending execution"};
  }
  if (request.has_num_nodes() && request.num_nodes() < 1) {
    return Error{ErrorCode::Invalid, "Node count specification invalid"};
  }
  return okStatus();
}

}  // namespace gantry::core
