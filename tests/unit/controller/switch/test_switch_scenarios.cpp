// Longer stories in simulated time: the controller killed with kill -9
// during a setup and during a held teardown, a reconfigure during a call,
// and a requeued job whose late setup and next run overlap.
#include <catch2/catch.hpp>
#include <string>

#include "switch_harness.h"

using namespace gantry;
using namespace gantry::interconnect;
using namespace gantry::interconnect::test;

namespace {
const std::string kTable = R"({"ports":{"rk4n07":12,"rk4n08":13}})";
}

TEST_CASE("kill -9 of the controller during a setup: restored and run again", "[switch][scenario]") {
  Harness h;
  h.settings.timeoutMs = 20'000;
  h.startSetup();
  h.advance(15'000);
  h.crashAndRecover();  // no Stopping: the process just died

  CHECK(h.setups.size() == 2);
  CHECK(h.logged("was outstanding at the restart; it runs again") == 1);
  h.advance(15'000);  // 30 s after the first start, 15 s into the second
  CHECK(h.jobResults.empty());
  h.setupAnswers(SetupAnswer::dictionary(kTable));
  CHECK(h.jobResults == std::vector<std::string>{"configured:" + kTable});

  h.advance(600'000);
  h.end();
  CHECK(h.lastTeardown().jobinfo == kTable);
  h.teardownAnswers(TeardownAnswer::success());
  CHECK(h.noneHeld());
  CHECK(h.drained.empty());
  CHECK(h.logged("switchlua: job_start(): JobId=523") == 2);
  CHECK(h.logged("switchlua: job_complete(): JobId=523") == 1);
}

TEST_CASE("kill -9 of the controller during a held teardown, twice", "[switch][scenario]") {
  Harness h;
  h.settings.retries = 1;
  h.startSetup();
  h.setupAnswers(SetupAnswer::dictionary(kTable));
  h.end();
  h.teardownAnswers(TeardownAnswer::again());
  h.periodic();  // the one retry runs
  h.crashAndRecover();
  CHECK(h.allHeld(kNodes));
  CHECK(h.teardowns.size() == 3);
  h.advance(30'000);
  h.crashAndRecover();  // killed again while the re-run teardown runs
  CHECK(h.teardowns.size() == 4);
  CHECK(h.lastTeardown().jobinfo == kTable);
  h.advance(45'000);  // this one does not report either
  CHECK(h.logged("switch completion did not report within 45s") == 1);
  CHECK(h.drained.size() == kNodes.size());
  CHECK(h.noneHeld());
  CHECK_FALSE(hasOutstandingCalls(h.record));
}

TEST_CASE("a reconfigure during a call kills it before the new controller runs it again", "[switch][scenario]") {
  Harness h;
  h.startSetup();
  const CallId first = h.lastSetup();
  h.advance(3'000);
  h.stopAndRecover();

  // The kill of the old call comes before the run of the new one.
  int killAt = -1, runAt = -1;
  for (int i = 0; i < static_cast<int>(h.all.size()); ++i) {
    if (const auto* kill = std::get_if<KillCall>(&h.all[i]); kill && kill->call == first) killAt = i;
    if (const auto* run = std::get_if<RunSetup>(&h.all[i]); run && run->call != first) runAt = i;
  }
  CHECK(killAt >= 0);
  CHECK(killAt < runAt);

  h.setupAnswers(SetupAnswer::dictionary(kTable));
  h.end();
  h.advance(1'000);
  h.stopAndRecover();  // a reconfigure during the held teardown
  CHECK(h.teardowns.size() == 2);
  CHECK(h.allHeld(kNodes));
  h.teardownAnswers(TeardownAnswer::failed("returned -9"));
  CHECK(h.logged("switch teardown failed for JobId=523: returned -9") == 1);
  CHECK(h.drained.size() == kNodes.size());
  CHECK(h.noneHeld());
}

TEST_CASE("a requeued job runs its next setup while the late setup of the last run is torn down",
          "[switch][scenario]") {
  Harness h;
  h.settings.blockJobComplete = false;
  h.startSetup({"rk4n07", "rk4n08"});
  const CallId slow = h.lastSetup();
  h.advance(45'000);
  CHECK(h.jobResults == std::vector<std::string>{"failed:switch setup timed out"});
  h.end();  // requeued; its abandoned setup is torn down with nil, unheld
  h.teardownAnswers(TeardownAnswer::success());
  h.startSetup({"rk4n07", "rk4n08"});  // the next run, on the same nodes
  h.send(switch_event::SetupReported{slow, SetupAnswer::dictionary(kTable)});  // the slow one, at last
  CHECK(h.lastTeardown().lateSetup == slow);
  CHECK(h.lastTeardown().jobinfo == kTable);
  h.teardownAnswers(TeardownAnswer::success());
  CHECK(h.logged("late setup of JobId=523: its job_complete() returned SUCCESS") == 1);

  h.setupAnswers(SetupAnswer::dictionary(R"({"ports":{}})"));
  CHECK(h.jobResults.back() == R"(configured:{"ports":{}})");
  CHECK(h.noneHeld());
  CHECK(h.drained.empty());
}
