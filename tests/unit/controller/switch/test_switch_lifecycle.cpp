// One row per rule of the controller side of switch/lua (setup answers,
// teardown answers, timeouts, EAGAIN retries, drains, holds, a job that
// ends during its setup), in simulated time. Restarts are in
// test_switch_restarts.cpp.
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "switch_harness.h"

using namespace gantry;
using namespace gantry::interconnect;
using namespace gantry::interconnect::test;

namespace {

struct RuleRow {
  std::string rule;
  std::function<void(Harness&)> check;
};

void runRows(const std::vector<RuleRow>& rows) {
  for (const RuleRow& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      Harness h;
      row.check(h);
    }
  }
}

const std::string kTable = R"({"vni":4411,"fabric":"east"})";

// A configured run that has ended: its teardown is running.
void configuredAndEnded(Harness& h, const Nodes& nodes = kNodes) {
  h.startSetup(nodes);
  h.setupAnswers(SetupAnswer::dictionary(kTable));
  h.end();
}

}  // namespace

TEST_CASE("switch setup: one rule per row", "[switch]") {
  runRows({
      {"a setup runs job_start, logs the call and arms switch_timeout from its start",
       [](Harness& h) {
         h.startSetup();
         CHECK(h.setups.size() == 1);
         CHECK(h.timers.at(h.lastSetup()) == h.now + 45'000);
         CHECK(h.logged("switchlua: job_start(): JobId=523") == 1);
         CHECK(h.jobResults.empty());  // still CONFIGURING
         CHECK(h.record.setup == SetupPhase::Running);
       }},
      {"the record is stored before the call is run",
       [](Harness& h) {
         h.startSetup();
         REQUIRE_FALSE(h.last.empty());
         CHECK(std::holds_alternative<PersistSwitchState>(h.last.front()));
         REQUIRE(h.persisted);
         CHECK(h.persisted->setup == SetupPhase::Running);
       }},
      {"SUCCESS with a dictionary configures the job and keeps the dictionary as stepinfo",
       [](Harness& h) {
         h.startSetup();
         h.setupAnswers(SetupAnswer::dictionary(kTable));
         CHECK(h.jobResults == std::vector<std::string>{"configured:" + kTable});
         CHECK(managesSteps(h.record));
         CHECK(h.record.stepinfo == kTable);
         CHECK(h.persisted->stepinfo == kTable);
         CHECK_FALSE(hasOutstandingCalls(h.record));
       }},
      {"SUCCESS with nil declines the job: no stepinfo and no teardown at its end",
       [](Harness& h) {
         h.startSetup();
         h.setupAnswers(SetupAnswer::declined());
         CHECK(h.jobResults == std::vector<std::string>{"declined"});
         CHECK_FALSE(managesSteps(h.record));
         h.end();
         CHECK(h.teardowns.empty());
         CHECK(h.noneHeld());
       }},
      {"another number, a non-number or a Lua error fails the setup with no teardown and no drain",
       [](Harness& h) {
         for (const char* why : {"returned 3", "returned a string", "Lua error: attempt to index nil"}) {
           h.startSetup();
           h.setupAnswers(SetupAnswer::failed(why));
           CHECK(h.jobResults.back() == "failed:switch setup failed");
           CHECK(h.logged(std::string("switch setup of JobId=523 failed: ") + why, LogLevel::Error) == 1);
           h.end();  // requeued or cancelled by the core
         }
         CHECK(h.teardowns.empty());
         CHECK(h.drained.empty());
         CHECK(h.noneHeld());
       }},
      {"a refused dictionary fails the setup and is torn down with nil jobinfo when the run ends",
       [](Harness& h) {
         h.startSetup();
         h.setupAnswers(SetupAnswer::refused("table too deep"));
         CHECK(h.jobResults == std::vector<std::string>{"failed:switch setup failed"});
         CHECK(h.logged("table too deep", LogLevel::Error) == 1);
         CHECK(h.teardowns.empty());
         h.end();
         REQUIRE(h.teardowns.size() == 1);
         CHECK_FALSE(h.lastTeardown().jobinfo.has_value());
       }},
      {"a call that exits without a result fails the setup and is torn down with nil",
       [](Harness& h) {
         h.startSetup();
         h.setupAnswers(SetupAnswer::noResult());
         CHECK(h.jobResults == std::vector<std::string>{"failed:switch setup failed"});
         h.end();
         REQUIRE(h.teardowns.size() == 1);
         CHECK_FALSE(h.lastTeardown().jobinfo.has_value());
       }},
      {"a setup that dies on a signal is treated as timed out",
       [](Harness& h) {
         h.startSetup();
         h.setupAnswers(SetupAnswer::signalled("SIGSEGV"));
         CHECK(h.jobResults == std::vector<std::string>{"failed:switch setup timed out"});
         CHECK(h.countAll<KillCall>() == 0);  // already dead
         h.end();
         REQUIRE(h.teardowns.size() == 1);
         CHECK_FALSE(h.lastTeardown().jobinfo.has_value());
       }},
      {"a setup is not timed out before switch_timeout has passed",
       [](Harness& h) {
         h.startSetup();
         h.advance(44'999);
         h.periodic();
         CHECK(h.jobResults.empty());
         CHECK(h.countAll<KillCall>() == 0);
         h.setupAnswers(SetupAnswer::dictionary(kTable));
         CHECK(h.jobResults == std::vector<std::string>{"configured:" + kTable});
       }},
      {"no report within switch_timeout kills the setup and fails the job with switch setup timed out",
       [](Harness& h) {
         h.startSetup();
         const CallId setup = h.lastSetup();
         h.advance(45'000);
         CHECK(h.countAll<KillCall>() == 1);
         CHECK(std::get<KillCall>(h.last.at(1)).call == setup);
         CHECK(h.jobResults == std::vector<std::string>{"failed:switch setup timed out"});
         CHECK(h.logged("did not report within 45s", LogLevel::Error) == 1);
         CHECK(h.drained.empty());
       }},
      {"an abandoned setup is torn down with nil jobinfo when the failed run ends",
       [](Harness& h) {
         h.startSetup();
         h.advance(45'000);
         h.end();
         REQUIRE(h.teardowns.size() == 1);
         CHECK_FALSE(h.lastTeardown().jobinfo.has_value());
         CHECK_FALSE(h.lastTeardown().lateSetup.has_value());
         CHECK(h.logged("switchlua: job_complete(): JobId=523") == 1);
       }},
      {"a late setup with a dictionary gets one more job_complete with it, only logged",
       [](Harness& h) {
         h.startSetup();
         const CallId setup = h.lastSetup();
         h.advance(45'000);
         h.end();
         h.send(switch_event::SetupReported{setup, SetupAnswer::dictionary(kTable)});
         REQUIRE(h.teardowns.size() == 2);
         CHECK(h.lastTeardown().jobinfo == kTable);
         CHECK(h.lastTeardown().lateSetup == setup);
         CHECK(h.logged("late setup of JobId=523") == 1);
         CHECK(h.jobResults.size() == 1);  // the job's result does not change
       }},
      {"a late setup with a refused dictionary or no result gets one more job_complete with nil",
       [](Harness& h) {
         for (const SetupAnswer& answer : {SetupAnswer::refused("table too large"), SetupAnswer::noResult()}) {
           h.startSetup();
           const CallId setup = h.lastSetup();
           h.advance(45'000);
           h.end();
           const size_t before = h.teardowns.size();
           h.send(switch_event::SetupReported{setup, answer});
           REQUIRE(h.teardowns.size() == before + 1);
           CHECK_FALSE(h.lastTeardown().jobinfo.has_value());
           CHECK(h.lastTeardown().lateSetup == setup);
         }
       }},
      {"a late setup that failed or declined has nothing more to tear down",
       [](Harness& h) {
         for (const SetupAnswer& answer : {SetupAnswer::failed("returned -1"), SetupAnswer::declined()}) {
           h.startSetup();
           const CallId setup = h.lastSetup();
           h.advance(45'000);
           h.end();
           const size_t before = h.teardowns.size();
           h.send(switch_event::SetupReported{setup, answer});
           CHECK(h.teardowns.size() == before);
         }
         CHECK(h.logged("late setup of JobId=523") == 2);
       }},
      {"the late teardown is only logged: it holds nothing, drains nothing and EAGAIN is not retried",
       [](Harness& h) {
         h.settings.blockJobComplete = false;
         h.startSetup();
         const CallId setup = h.lastSetup();
         h.advance(45'000);
         h.end();
         h.teardownAnswers(TeardownAnswer::success());  // the abandoned setup's own teardown
         h.send(switch_event::SetupReported{setup, SetupAnswer::dictionary(kTable)});
         CHECK(h.noneHeld());
         h.teardownAnswers(TeardownAnswer::again());
         h.periodic();
         CHECK(h.teardowns.size() == 2);
         CHECK(h.drained.empty());
         CHECK(h.noneHeld());
         CHECK(h.logged("late setup of JobId=523: its job_complete() returned EAGAIN", LogLevel::Error) == 1);
         CHECK_FALSE(hasOutstandingCalls(h.record));
       }},
      {"a late teardown that fails or does not report is only logged",
       [](Harness& h) {
         h.startSetup();
         const CallId setup = h.lastSetup();
         h.advance(45'000);
         h.end();
         h.teardownAnswers(TeardownAnswer::success());
         h.send(switch_event::SetupReported{setup, SetupAnswer::noResult()});
         h.advance(45'000);
         CHECK(h.logged("late setup of JobId=523: its job_complete() did not report within 45s") == 1);
         CHECK(h.drained.empty());
         CHECK(h.noneHeld());
       }},
      {"the killed setup's own report after its timeout changes nothing",
       [](Harness& h) {
         h.startSetup();
         const CallId setup = h.lastSetup();
         h.advance(45'000);
         h.send(switch_event::SetupReported{setup, SetupAnswer::signalled("SIGKILL")});
         CHECK(h.record.calls.empty());
         CHECK(h.jobResults.size() == 1);
       }},
      {"each run of a requeued job is set up again",
       [](Harness& h) {
         h.startSetup();
         h.setupAnswers(SetupAnswer::failed("returned -1"));
         h.end();  // requeued
         h.startSetup({"rk4n11", "rk4n12"});
         h.setupAnswers(SetupAnswer::dictionary(kTable));
         CHECK(h.setups.size() == 2);
         CHECK(h.jobResults.back() == "configured:" + kTable);
       }},
      {"a setup while the run's setup is not over is refused and changes nothing",
       [](Harness& h) {
         h.startSetup();
         const SwitchRecord before = h.record;
         Result<SwitchEffects> again = h.trySend(switch_event::StartSetup{kNodes});
         REQUIRE_FALSE(again.ok());
         CHECK(again.errorCode() == ErrorCode::NotNow);
         CHECK(again.error().find("JobId=523") != std::string::npos);
         CHECK(h.record == before);
         h.setupAnswers(SetupAnswer::dictionary(kTable));
         CHECK(h.trySend(switch_event::StartSetup{kNodes}).errorCode() == ErrorCode::NotNow);
       }},
      {"a setup without nodes is refused as invalid",
       [](Harness& h) {
         Result<SwitchEffects> result = h.trySend(switch_event::StartSetup{});
         CHECK(result.errorCode() == ErrorCode::Invalid);
         CHECK(h.record == newSwitchRecord(523));
       }},
      {"a report of a call the record does not know is refused as not found",
       [](Harness& h) {
         h.startSetup();
         const SwitchRecord before = h.record;
         Result<SwitchEffects> result =
             h.trySend(switch_event::SetupReported{h.lastSetup() + 40, SetupAnswer::declined()});
         CHECK(result.errorCode() == ErrorCode::NotFound);
         CHECK(h.record == before);
       }},
      {"a teardown report for a setup call is refused as invalid",
       [](Harness& h) {
         h.startSetup();
         Result<SwitchEffects> result =
             h.trySend(switch_event::TeardownReported{h.lastSetup(), TeardownAnswer::success()});
         CHECK(result.errorCode() == ErrorCode::Invalid);
         CHECK(h.record.setup == SetupPhase::Running);
       }},
      {"a run that ends before any setup has nothing to tear down",
       [](Harness& h) {
         h.end();
         CHECK(h.last.empty());
         CHECK(h.teardowns.empty());
       }},
  });
}

TEST_CASE("switch teardown: one rule per row", "[switch]") {
  runRows({
      {"a configured job's end runs job_complete with its dictionary as jobinfo",
       [](Harness& h) {
         configuredAndEnded(h);
         REQUIRE(h.teardowns.size() == 1);
         CHECK(h.lastTeardown().jobinfo == kTable);
         CHECK(h.timers.at(h.lastTeardown().call) == h.now + 45'000);
         CHECK(h.logged("switchlua: job_complete(): JobId=523") == 1);
         CHECK_FALSE(managesSteps(h.record));  // the run is over
       }},
      {"block_job_complete true holds the nodes until the teardown reports",
       [](Harness& h) {
         configuredAndEnded(h);
         CHECK(h.allHeld(kNodes));
         h.advance(30'000);
         CHECK(h.allHeld(kNodes));
         h.teardownAnswers(TeardownAnswer::success());
         CHECK(h.noneHeld());
         CHECK(h.drained.empty());
       }},
      {"block_job_complete false leaves the nodes in service while the teardown runs",
       [](Harness& h) {
         h.settings.blockJobComplete = false;
         configuredAndEnded(h);
         CHECK(h.countAll<HoldNodes>() == 0);
         CHECK(h.teardowns.size() == 1);
         h.teardownAnswers(TeardownAnswer::success());
         CHECK(h.countAll<ReleaseNodes>() == 0);
       }},
      {"a non-number is logged and taken as success",
       [](Harness& h) {
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::notANumber("\"done\""));
         CHECK(h.noneHeld());
         CHECK(h.drained.empty());
         CHECK(h.logged("not a number; taken as success") == 1);
       }},
      {"another positive number is logged as an error and not enforced",
       [](Harness& h) {
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::otherPositive(17));
         CHECK(h.noneHeld());
         CHECK(h.drained.empty());
         CHECK(h.logged("returned 17; logged, not enforced", LogLevel::Error) == 1);
       }},
      {"a negative number or a Lua error drains the nodes with Switch job complete failed",
       [](Harness& h) {
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::failed("returned -4"));
         for (const std::string& node : kNodes) CHECK(h.drained.at(node) == "Switch job complete failed");
         CHECK(h.logged("switch teardown failed for JobId=523: returned -4", LogLevel::Error) == 1);
         CHECK(h.logged("drained rk4n[07-09] after a failed switch teardown", LogLevel::Error) == 1);
         CHECK(h.noneHeld());
       }},
      {"the drain comes before the nodes are released",
       [](Harness& h) {
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::failed("Lua error: boom"));
         int drainAt = -1, releaseAt = -1;
         for (int i = 0; i < static_cast<int>(h.last.size()); ++i) {
           if (std::holds_alternative<DrainNodes>(h.last[i])) drainAt = i;
           if (std::holds_alternative<ReleaseNodes>(h.last[i])) releaseAt = i;
         }
         CHECK(drainAt >= 0);
         CHECK(drainAt < releaseAt);
       }},
      {"switch_drain_on_failure=no: a failed teardown drains nothing and frees the nodes",
       [](Harness& h) {
         h.settings.drainOnFailure = false;
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::failed("returned -1"));
         CHECK(h.drained.empty());
         CHECK(h.noneHeld());
         CHECK(h.logged("switch teardown failed for JobId=523") == 1);
         CHECK(h.logged("after a failed switch teardown") == 0);
       }},
      {"a teardown that dies on a signal is treated as timed out",
       [](Harness& h) {
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::signalled("SIGBUS"));
         CHECK(h.logged("switch completion did not report within 45s for JobId=523 (it died on SIGBUS)",
                        LogLevel::Error) == 1);
         CHECK(h.drained.size() == kNodes.size());
         CHECK(h.noneHeld());
         CHECK(h.countAll<KillCall>() == 0);
       }},
      {"the periodic check comes once every switch_timeout",
       [](Harness& h) {
         CHECK(periodicCheckIntervalMs(h.settings) == 45'000);
         h.settings.timeoutMs = 7'250;
         CHECK(periodicCheckIntervalMs(h.settings) == 7'250);
       }},
      {"a teardown that does not report within switch_timeout fails: killed and drained",
       [](Harness& h) {
         configuredAndEnded(h);
         const CallId teardown = h.lastTeardown().call;
         h.advance(44'999);
         CHECK(h.drained.empty());
         h.advance(1);
         CHECK(h.countAll<KillCall>() == 1);
         CHECK(h.logged("switch completion did not report within 45s for JobId=523", LogLevel::Error) == 1);
         CHECK(h.drained.size() == kNodes.size());
         CHECK(h.noneHeld());
         // Its report, when it comes, is ignored.
         Result<SwitchEffects> late = h.trySend(switch_event::TeardownReported{teardown, TeardownAnswer::success()});
         CHECK(late.errorCode() == ErrorCode::NotFound);
         CHECK(h.drained.size() == kNodes.size());
       }},
      {"EAGAIN with held nodes runs job_complete again at the next periodic check with the same jobinfo",
       [](Harness& h) {
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::again());
         CHECK(h.teardowns.size() == 1);
         CHECK(h.allHeld(kNodes));
         CHECK(h.drained.empty());
         h.advance(5'000);
         h.periodic();
         REQUIRE(h.teardowns.size() == 2);
         CHECK(h.lastTeardown().jobinfo == kTable);
         CHECK(h.timers.at(h.lastTeardown().call) == h.now + 45'000);
         CHECK(h.allHeld(kNodes));
       }},
      {"EAGAIN below switch_retries then SUCCESS frees the nodes without a drain",
       [](Harness& h) {
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::again());
         h.periodic();
         h.teardownAnswers(TeardownAnswer::again());
         h.periodic();
         h.teardownAnswers(TeardownAnswer::success());
         CHECK(h.teardowns.size() == 3);
         CHECK(h.drained.empty());
         CHECK(h.noneHeld());
       }},
      {"EAGAIN after switch_retries retries is a failure: still not done after N retries",
       [](Harness& h) {
         configuredAndEnded(h);
         for (int i = 0; i < 2; ++i) {
           h.teardownAnswers(TeardownAnswer::again());
           h.periodic();
         }
         h.teardownAnswers(TeardownAnswer::again());
         h.periodic();
         CHECK(h.teardowns.size() == 3);  // the first call and 2 retries
         CHECK(h.logged("switch teardown still not done after 2 retries for JobId=523", LogLevel::Error) == 1);
         CHECK(h.drained.size() == kNodes.size());
         CHECK(h.noneHeld());
       }},
      {"switch_retries=0: the first EAGAIN is a failure",
       [](Harness& h) {
         h.settings.retries = 0;
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::again());
         CHECK(h.logged("switch teardown still not done after 0 retries") == 1);
         CHECK(h.drained.size() == kNodes.size());
       }},
      {"EAGAIN when the nodes are not held is a failure",
       [](Harness& h) {
         h.settings.blockJobComplete = false;
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::again());
         h.periodic();
         CHECK(h.teardowns.size() == 1);
         CHECK(h.logged("switch teardown failed for JobId=523: returned EAGAIN", LogLevel::Error) == 1);
         CHECK(h.drained.size() == kNodes.size());
       }},
      {"a failed teardown drains unheld nodes too",
       [](Harness& h) {
         h.settings.blockJobComplete = false;
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::failed("returned -2"));
         CHECK(h.drained.size() == kNodes.size());
         CHECK(h.countAll<ReleaseNodes>() == 0);
       }},
      {"the nodes held and drained are those the job has when it ends",
       [](Harness& h) {
         h.startSetup(kNodes);
         h.setupAnswers(SetupAnswer::dictionary(kTable));
         h.end({"rk4n08"});  // shrunk
         CHECK(h.held == std::set<std::string>{"rk4n08"});
         h.teardownAnswers(TeardownAnswer::failed("returned -1"));
         CHECK(h.drained.size() == 1);
         CHECK(h.drained.contains("rk4n08"));
       }},
      {"a report of a teardown waiting for its retry is refused",
       [](Harness& h) {
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::again());
         Result<SwitchEffects> result =
             h.trySend(switch_event::TeardownReported{h.lastTeardown().call, TeardownAnswer::success()});
         CHECK(result.errorCode() == ErrorCode::NotNow);
       }},
      {"a timer of a call that has reported changes nothing",
       [](Harness& h) {
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::success());
         h.advance(100'000);
         CHECK(h.drained.empty());
         CHECK(h.countAll<KillCall>() == 0);
       }},
      {"the periodic check times out a call whose timer was missed",
       [](Harness& h) {
         configuredAndEnded(h);
         h.timers.clear();
         h.advance(50'000);
         h.periodic();
         CHECK(h.logged("switch completion did not report within") == 1);
         CHECK(h.drained.size() == kNodes.size());
       }},
  });
}

TEST_CASE("a job that ends during its setup: one rule per row", "[switch]") {
  runRows({
      {"its nodes are held until the setup reports, whatever block_job_complete says",
       [](Harness& h) {
         h.settings.blockJobComplete = false;
         h.startSetup();
         h.advance(10'000);
         h.end();
         CHECK(h.allHeld(kNodes));
         CHECK(h.teardowns.empty());
         CHECK(h.logged("ended while its switch setup runs") == 1);
       }},
      {"a dictionary is then torn down with it, the nodes held, EAGAIN retried",
       [](Harness& h) {
         h.settings.blockJobComplete = false;
         h.startSetup();
         h.end();
         h.setupAnswers(SetupAnswer::dictionary(kTable));
         CHECK(h.jobResults.empty());  // the job has ended: nothing to start
         REQUIRE(h.teardowns.size() == 1);
         CHECK(h.lastTeardown().jobinfo == kTable);
         CHECK(h.allHeld(kNodes));
         h.teardownAnswers(TeardownAnswer::again());
         h.periodic();
         CHECK(h.teardowns.size() == 2);
         h.teardownAnswers(TeardownAnswer::success());
         CHECK(h.noneHeld());
         CHECK(h.drained.empty());
       }},
      {"a failure or a decline then frees the nodes with nothing to tear down",
       [](Harness& h) {
         for (const SetupAnswer& answer : {SetupAnswer::failed("returned -1"), SetupAnswer::declined()}) {
           h.startSetup();
           h.end();
           h.setupAnswers(answer);
           CHECK(h.noneHeld());
         }
         CHECK(h.teardowns.empty());
         CHECK(h.jobResults.empty());
       }},
      {"a refused dictionary or no result is then torn down with nil, the nodes held",
       [](Harness& h) {
         for (const SetupAnswer& answer : {SetupAnswer::refused("table too large"), SetupAnswer::noResult()}) {
           h.startSetup();
           h.end();
           h.setupAnswers(answer);
           CHECK_FALSE(h.lastTeardown().jobinfo.has_value());
           CHECK(h.allHeld(kNodes));
           h.teardownAnswers(TeardownAnswer::success());
           CHECK(h.noneHeld());
         }
         CHECK(h.teardowns.size() == 2);
       }},
      {"when the setup's time runs out it is killed and torn down with nil, the nodes held",
       [](Harness& h) {
         h.settings.blockJobComplete = false;
         h.startSetup();
         h.advance(30'000);
         h.end();
         h.advance(15'000);  // 45 s from the setup's start, not from the end
         CHECK(h.countAll<KillCall>() == 1);
         REQUIRE(h.teardowns.size() == 1);
         CHECK_FALSE(h.lastTeardown().jobinfo.has_value());
         CHECK(h.allHeld(kNodes));
         CHECK(h.jobResults.empty());  // no requeue or cancel: it has ended already
         h.teardownAnswers(TeardownAnswer::success());
         CHECK(h.noneHeld());
       }},
      {"being told twice that the run ended changes nothing",
       [](Harness& h) {
         h.startSetup();
         h.end();
         h.end();
         CHECK(h.countAll<HoldNodes>() == 1);
       }},
  });
}

TEST_CASE("switch record: which jobs are set up and what the core reads", "[switch]") {
  CHECK(requestsNetwork("fabric=east"));
  CHECK_FALSE(requestsNetwork(""));  // no --network, or an empty one

  Harness h;
  CHECK_FALSE(hasOutstandingCalls(h.record));
  h.startSetup();
  CHECK(hasOutstandingCalls(h.record));
  CHECK_FALSE(managesSteps(h.record));
  h.setupAnswers(SetupAnswer::dictionary("{}"));  // an empty table still manages the job
  CHECK(managesSteps(h.record));
  CHECK_FALSE(hasOutstandingCalls(h.record));
  h.end();
  CHECK(hasOutstandingCalls(h.record));
  h.teardownAnswers(TeardownAnswer::again());
  CHECK(hasOutstandingCalls(h.record));  // waiting for its retry
}
