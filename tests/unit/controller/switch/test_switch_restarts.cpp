// One row per rule of "Restarts": what a controller that (re)starts or is
// reconfigured does with the switch state it stored, and what a
// reconfigure that fails leaves behind. Each row restores from the record
// the last PersistSwitchState stored, as a real restart does.
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

const std::string kTable = R"({"lanes":[3,5],"tenant":"chem"})";

void configuredAndEnded(Harness& h) {
  h.startSetup();
  h.setupAnswers(SetupAnswer::dictionary(kTable));
  h.end();
}

}  // namespace

TEST_CASE("switch restarts: one rule per row", "[switch]") {
  std::vector<RuleRow> rows = {
      {"an outstanding setup runs again with a new switch_timeout and the job stays CONFIGURING",
       [](Harness& h) {
         h.startSetup();
         const CallId first = h.lastSetup();
         h.advance(40'000);
         h.crashAndRecover();
         REQUIRE(h.setups.size() == 2);
         CHECK(h.lastSetup() != first);
         CHECK(h.timers.at(h.lastSetup()) == h.now + 45'000);
         CHECK(h.jobResults.empty());
         CHECK(h.record.setup == SetupPhase::Running);
         h.advance(44'000);  // past the first deadline, within the new one
         CHECK(h.jobResults.empty());
         h.setupAnswers(SetupAnswer::dictionary(kTable));
         CHECK(h.jobResults == std::vector<std::string>{"configured:" + kTable});
       }},
      {"a stored outstanding setup whose call was lost still runs again",
       [](Harness& h) {
         h.record.setup = SetupPhase::Running;
         h.record.nodes = kNodes;
         h.persisted = h.record;
         h.crashAndRecover();
         CHECK(h.setups.size() == 1);
         CHECK(h.record.setup == SetupPhase::Running);
       }},
      {"a report of the killed setup, arriving after the restart, is refused",
       [](Harness& h) {
         h.startSetup();
         const CallId first = h.lastSetup();
         h.crashAndRecover();
         Result<SwitchEffects> old = h.trySend(switch_event::SetupReported{first, SetupAnswer::declined()});
         CHECK(old.errorCode() == ErrorCode::NotFound);
         CHECK(h.record.setup == SetupPhase::Running);
       }},
      {"a setup that already reported is not run again, whether it gave a dictionary or declined",
       [](Harness& h) {
         h.startSetup();
         h.setupAnswers(SetupAnswer::dictionary(kTable));
         h.crashAndRecover();
         CHECK(h.setups.size() == 1);
         CHECK(h.record.stepinfo == kTable);
         h.end();
         CHECK(h.lastTeardown().jobinfo == kTable);  // kept for its teardown

         Harness d;
         d.startSetup();
         d.setupAnswers(SetupAnswer::declined());
         d.crashAndRecover();
         CHECK(d.setups.size() == 1);
         d.end();
         CHECK(d.teardowns.empty());
       }},
      {"a held teardown runs again from the start with a new timeout, its jobinfo and its nodes held",
       [](Harness& h) {
         configuredAndEnded(h);
         const CallId first = h.lastTeardown().call;
         h.advance(20'000);
         h.crashAndRecover();
         REQUIRE(h.teardowns.size() == 2);
         CHECK(h.lastTeardown().call != first);
         CHECK(h.lastTeardown().jobinfo == kTable);
         CHECK(h.timers.at(h.lastTeardown().call) == h.now + 45'000);
         CHECK(h.countLast<HoldNodes>() == 1);
         CHECK(h.allHeld(kNodes));
         h.teardownAnswers(TeardownAnswer::success());
         CHECK(h.noneHeld());
       }},
      {"a held teardown run again gets a new switch_retries",
       [](Harness& h) {
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::again());
         h.periodic();
         h.teardownAnswers(TeardownAnswer::again());
         h.periodic();  // both retries used
         h.crashAndRecover();
         for (int i = 0; i < 2; ++i) {
           h.teardownAnswers(TeardownAnswer::again());
           h.periodic();
         }
         CHECK(h.drained.empty());
         h.teardownAnswers(TeardownAnswer::success());
         CHECK(h.drained.empty());
         CHECK(h.noneHeld());
       }},
      {"a held teardown waiting for its retry runs again at once",
       [](Harness& h) {
         configuredAndEnded(h);
         h.teardownAnswers(TeardownAnswer::again());
         h.crashAndRecover();
         CHECK(h.teardowns.size() == 2);
         CHECK(h.allHeld(kNodes));
       }},
      {"a job that ended during its setup is torn down as an abandoned setup, its nodes held",
       [](Harness& h) {
         h.settings.blockJobComplete = false;
         h.startSetup();
         h.end();
         h.crashAndRecover();
         CHECK(h.setups.size() == 1);
         REQUIRE(h.teardowns.size() == 1);
         CHECK_FALSE(h.lastTeardown().jobinfo.has_value());
         CHECK(h.allHeld(kNodes));
         h.teardownAnswers(TeardownAnswer::again());  // held whatever block says: retried
         h.periodic();
         CHECK(h.teardowns.size() == 2);
       }},
      {"a teardown that was not holding its nodes is neither run again nor failed",
       [](Harness& h) {
         h.settings.blockJobComplete = false;
         configuredAndEnded(h);
         h.crashAndRecover();
         CHECK(h.teardowns.size() == 1);
         CHECK(h.drained.empty());
         CHECK(h.noneHeld());
         CHECK_FALSE(hasOutstandingCalls(h.record));
       }},
      {"a held teardown that cannot be run again fails with had unresolved switch cleanup",
       [](Harness& h) {
         configuredAndEnded(h);
         h.crashAndRecover(/*callsCanRun=*/false);
         CHECK(h.teardowns.size() == 1);
         CHECK(h.logged("JobId=523 had unresolved switch cleanup", LogLevel::Error) == 1);
         CHECK(h.logged("drained rk4n[07-09] after a failed switch teardown") == 1);
         for (const std::string& node : kNodes) CHECK(h.drained.at(node) == "Switch job complete failed");
         CHECK(h.noneHeld());
         CHECK_FALSE(hasOutstandingCalls(h.record));
       }},
      {"unresolved cleanup drains nothing with switch_drain_on_failure=no",
       [](Harness& h) {
         h.settings.drainOnFailure = false;
         configuredAndEnded(h);
         h.crashAndRecover(false);
         CHECK(h.logged("had unresolved switch cleanup") == 1);
         CHECK(h.drained.empty());
       }},
      {"an outstanding setup that cannot be run again fails the job",
       [](Harness& h) {
         h.startSetup();
         h.crashAndRecover(false);
         CHECK(h.setups.size() == 1);
         CHECK(h.jobResults == std::vector<std::string>{"failed:switch setup failed"});
         h.end();
         CHECK(h.teardowns.empty());
       }},
      {"abandoned setups and late teardowns are not carried over",
       [](Harness& h) {
         h.settings.blockJobComplete = false;
         h.startSetup();
         const CallId setup = h.lastSetup();
         h.advance(45'000);
         h.end();
         h.teardownAnswers(TeardownAnswer::success());
         h.send(switch_event::SetupReported{setup, SetupAnswer::dictionary(kTable)});  // late
         h.startSetup();  // the requeued run
         const CallId second = h.lastSetup();
         h.advance(45'000);  // abandoned again, may still report
         h.crashAndRecover();
         CHECK(h.record.calls.empty());
         CHECK(h.trySend(switch_event::SetupReported{second, SetupAnswer::noResult()}).errorCode() ==
               ErrorCode::NotFound);
       }},
      {"stopping kills every running call, and a report after it is dropped",
       [](Harness& h) {
         h.settings.blockJobComplete = false;
         configuredAndEnded(h);  // an unheld teardown runs
         h.startSetup({"rk4n20"});  // and the requeued run's setup
         h.send(switch_event::Stopping{});
         CHECK(h.countLast<KillCall>() == 2);
         h.send(switch_event::SetupReported{h.lastSetup(), SetupAnswer::dictionary(kTable)});
         CHECK(h.jobResults.size() == 1);  // the first run's only
         CHECK(h.last.empty());
       }},
      {"after a failed reconfigure a killed setup counts as timed out at its deadline",
       [](Harness& h) {
         h.startSetup();
         h.advance(10'000);
         h.send(switch_event::Stopping{});
         h.advance(34'999);
         h.periodic();
         CHECK(h.jobResults.empty());
         h.advance(1);
         h.periodic();
         CHECK(h.jobResults == std::vector<std::string>{"failed:switch setup timed out"});
         CHECK(h.countAll<KillCall>() == 1);  // killed once, at the stop
         h.end();
         REQUIRE(h.teardowns.size() == 1);
         CHECK_FALSE(h.lastTeardown().jobinfo.has_value());
       }},
      {"after a failed reconfigure a killed teardown fails at its deadline and drains unheld nodes too",
       [](Harness& h) {
         h.settings.blockJobComplete = false;
         configuredAndEnded(h);
         h.send(switch_event::Stopping{});
         h.advance(45'000);
         CHECK(h.logged("switch completion did not report within 45s for JobId=523") == 1);
         CHECK(h.drained.size() == kNodes.size());
       }},
      {"settings changed by a reconfigure apply to the calls that follow it",
       [](Harness& h) {
         h.settings.blockJobComplete = false;
         h.startSetup();
         h.send(switch_event::Stopping{});
         h.settings.blockJobComplete = true;
         h.settings.timeoutMs = 12'500;
         h.crashAndRecover();
         CHECK(h.timers.at(h.lastSetup()) == h.now + 12'500);
         h.setupAnswers(SetupAnswer::dictionary(kTable));
         h.end();
         CHECK(h.allHeld(kNodes));
       }},
  };
  for (const RuleRow& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      Harness h;
      row.check(h);
    }
  }
}
