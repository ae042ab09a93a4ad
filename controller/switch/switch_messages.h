// Every log line of the switch/lua lifecycle, in one place. Lines an
// administrator greps for carry the phrases of the reference verbatim:
// "switch teardown failed for", "switch completion did not report within",
// "switch teardown still not done after", "had unresolved switch cleanup",
// "drained <nodes> after a failed switch teardown", "late setup of JobId=",
// and the "switchlua: job_start(): JobId=" / "switchlua: job_complete():
// JobId=" lines of each call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gantry::interconnect::messages {

// 45000 -> "45s", 1500 -> "1.5s".
std::string duration(int64_t ms);

std::string jobStartCalled(uint64_t job);
std::string jobCompleteCalled(uint64_t job);
std::string lateJobCompleteCalled(uint64_t job);

std::string setupDone(uint64_t job);
std::string setupDeclined(uint64_t job);
std::string setupFailed(uint64_t job, const std::string& detail);
std::string setupRefused(uint64_t job, const std::string& why);
std::string setupNoResult(uint64_t job);
std::string setupSignalled(uint64_t job, const std::string& signal);
std::string setupTimedOut(uint64_t job, int64_t timeoutMs);
std::string endedDuringSetup(uint64_t job, const std::vector<std::string>& nodes);

std::string teardownDone(uint64_t job);
std::string teardownNotANumber(uint64_t job, const std::string& shown);
std::string teardownOtherPositive(uint64_t job, int rc);
std::string teardownWillRetry(uint64_t job, int retry, int retries);
std::string teardownFailed(uint64_t job, const std::string& detail);
std::string teardownAgainUnheld(uint64_t job);
std::string teardownTimedOut(uint64_t job, int64_t timeoutMs);
std::string teardownSignalled(uint64_t job, int64_t timeoutMs, const std::string& signal);
std::string teardownExhausted(uint64_t job, int retries);
std::string unresolvedCleanup(uint64_t job, const std::vector<std::string>& nodes);
std::string drained(uint64_t job, const std::vector<std::string>& nodes);
std::string notDrained(uint64_t job, const std::vector<std::string>& nodes);

std::string lateDictionary(uint64_t job);
std::string lateNoResult(uint64_t job);
std::string lateNothingToUndo(uint64_t job);
std::string lateTeardownResult(uint64_t job, const std::string& result);

std::string setupRunsAgain(uint64_t job);
std::string setupCannotRunAgain(uint64_t job);
std::string teardownRunsAgain(uint64_t job, const std::vector<std::string>& nodes);
std::string unheldTeardownForgotten(uint64_t job);
std::string callKilled(uint64_t job, const char* kind);

}  // namespace gantry::interconnect::messages
