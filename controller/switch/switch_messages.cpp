#include "controller/switch/switch_messages.h"

#include "common/hostlist/hostlist.h"

namespace gantry::interconnect::messages {

namespace {

std::string jobId(uint64_t job) { return "JobId=" + std::to_string(job); }
std::string prefix() { return "switchlua: "; }

}  // namespace

std::string duration(int64_t ms) {
  std::string text = std::to_string(ms / 1000);
  if (int64_t rest = ms % 1000; rest != 0) {
    std::string fraction = std::to_string(1000 + rest).substr(1);  // zero padded
    while (fraction.back() == '0') fraction.pop_back();
    text += "." + fraction;
  }
  return text + "s";
}

std::string jobStartCalled(uint64_t job) { return prefix() + "job_start(): " + jobId(job); }
std::string jobCompleteCalled(uint64_t job) { return prefix() + "job_complete(): " + jobId(job); }
std::string lateJobCompleteCalled(uint64_t job) {
  return prefix() + "job_complete(): " + jobId(job) + ", once more for its late setup";
}

std::string setupDone(uint64_t job) { return prefix() + "switch setup of " + jobId(job) + " done"; }
std::string setupDeclined(uint64_t job) {
  return prefix() + "switch setup declined " + jobId(job) + "; its steps run no switch functions";
}
std::string setupFailed(uint64_t job, const std::string& detail) {
  return prefix() + "switch setup of " + jobId(job) + " failed: " + detail;
}
std::string setupRefused(uint64_t job, const std::string& why) {
  return prefix() + "switch setup of " + jobId(job) + " returned a dictionary the controller refused (" +
         why + "); what it did is torn down when the job ends";
}
std::string setupNoResult(uint64_t job) {
  return prefix() + "switch setup of " + jobId(job) +
         " exited without a result; what it did is torn down when the job ends";
}
std::string setupSignalled(uint64_t job, const std::string& signal) {
  return prefix() + "switch setup of " + jobId(job) + " died on " + signal + "; treated as timed out";
}
std::string setupTimedOut(uint64_t job, int64_t timeoutMs) {
  return prefix() + "switch setup of " + jobId(job) + " did not report within " + duration(timeoutMs) +
         "; abandoned and killed";
}
std::string endedDuringSetup(uint64_t job, const std::vector<std::string>& nodes) {
  return prefix() + jobId(job) + " ended while its switch setup runs; " + hostlist::compress(nodes) +
         " held until the setup reports";
}

std::string teardownDone(uint64_t job) { return prefix() + "switch teardown of " + jobId(job) + " done"; }
std::string teardownNotANumber(uint64_t job, const std::string& shown) {
  return prefix() + "switch teardown of " + jobId(job) + " returned " + shown +
         ", not a number; taken as success";
}
std::string teardownOtherPositive(uint64_t job, int rc) {
  return prefix() + "switch teardown of " + jobId(job) + " returned " + std::to_string(rc) +
         "; logged, not enforced";
}
std::string teardownWillRetry(uint64_t job, int retry, int retries) {
  return prefix() + "switch teardown of " + jobId(job) + " returned EAGAIN; retry " + std::to_string(retry) +
         " of " + std::to_string(retries) + " at the next periodic check";
}
std::string teardownFailed(uint64_t job, const std::string& detail) {
  return prefix() + "switch teardown failed for " + jobId(job) + ": " + detail;
}
std::string teardownAgainUnheld(uint64_t job) {
  return teardownFailed(job, "returned EAGAIN, but its nodes are not held (block_job_complete is false)");
}
std::string teardownTimedOut(uint64_t job, int64_t timeoutMs) {
  return prefix() + "switch completion did not report within " + duration(timeoutMs) + " for " + jobId(job);
}
std::string teardownSignalled(uint64_t job, int64_t timeoutMs, const std::string& signal) {
  return teardownTimedOut(job, timeoutMs) + " (it died on " + signal + ")";
}
std::string teardownExhausted(uint64_t job, int retries) {
  return prefix() + "switch teardown still not done after " + std::to_string(retries) +
         (retries == 1 ? " retry for " : " retries for ") + jobId(job);
}
std::string unresolvedCleanup(uint64_t job, const std::vector<std::string>& nodes) {
  return prefix() + jobId(job) + " had unresolved switch cleanup: its teardown held " +
         hostlist::compress(nodes) + " when the controller restarted and cannot be run again";
}
std::string drained(uint64_t job, const std::vector<std::string>& nodes) {
  return prefix() + "drained " + hostlist::compress(nodes) + " after a failed switch teardown of " + jobId(job);
}
std::string notDrained(uint64_t job, const std::vector<std::string>& nodes) {
  return prefix() + "switch_drain_on_failure=no: " + hostlist::compress(nodes) + " of " + jobId(job) +
         " stay in service despite the failed teardown";
}

std::string lateDictionary(uint64_t job) {
  return prefix() + "late setup of " + jobId(job) +
         " reported a dictionary after it was abandoned; job_complete() runs once more for it";
}
std::string lateNoResult(uint64_t job) {
  return prefix() + "late setup of " + jobId(job) +
         " reported after it was abandoned, without a usable result; job_complete() runs once more for it";
}
std::string lateNothingToUndo(uint64_t job) {
  return prefix() + "late setup of " + jobId(job) +
         " reported after it was abandoned, with nothing more to tear down";
}
std::string lateTeardownResult(uint64_t job, const std::string& result) {
  return prefix() + "late setup of " + jobId(job) + ": its job_complete() " + result;
}

std::string setupRunsAgain(uint64_t job) {
  return prefix() + "switch setup of " + jobId(job) + " was outstanding at the restart; it runs again";
}
std::string setupCannotRunAgain(uint64_t job) {
  return prefix() + "switch setup of " + jobId(job) +
         " was outstanding at the restart and cannot be run again";
}
std::string teardownRunsAgain(uint64_t job, const std::vector<std::string>& nodes) {
  return prefix() + "switch teardown of " + jobId(job) + " held " + hostlist::compress(nodes) +
         " at the restart; it runs again from the start";
}
std::string unheldTeardownForgotten(uint64_t job) {
  return prefix() + "switch teardown of " + jobId(job) +
         " was not holding its nodes at the restart; it is not run again";
}
std::string callKilled(uint64_t job, const char* kind) {
  return prefix() + "killed the running " + std::string(kind) + " of " + jobId(job) +
         " as the controller stops";
}

}  // namespace gantry::interconnect::messages
