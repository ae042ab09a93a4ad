// The log lines an administrator greps for carry the reference's phrases
// verbatim, and name the job and the nodes.
#include <catch2/catch.hpp>

#include "controller/switch/switch_messages.h"

using namespace gantry::interconnect;

TEST_CASE("switch messages: durations", "[switch]") {
  CHECK(messages::duration(45'000) == "45s");
  CHECK(messages::duration(1'500) == "1.5s");
  CHECK(messages::duration(2'005) == "2.005s");
  CHECK(messages::duration(250) == "0.25s");
}

TEST_CASE("switch messages: the reference's phrases", "[switch]") {
  const std::vector<std::string> nodes = {"gx2", "gx3", "gx5"};
  CHECK(messages::teardownFailed(88, "returned -1").find("switch teardown failed for JobId=88") !=
        std::string::npos);
  CHECK(messages::teardownTimedOut(88, 12'000).find("switch completion did not report within 12s") !=
        std::string::npos);
  CHECK(messages::teardownExhausted(88, 4).find("switch teardown still not done after 4 retries") !=
        std::string::npos);
  CHECK(messages::teardownExhausted(88, 1).find("switch teardown still not done after 1 retry") !=
        std::string::npos);
  CHECK(messages::unresolvedCleanup(88, nodes).find("JobId=88 had unresolved switch cleanup") !=
        std::string::npos);
  CHECK(messages::drained(88, nodes).find("drained gx[2-3,5] after a failed switch teardown") != std::string::npos);
  CHECK(messages::lateTeardownResult(88, "returned SUCCESS").find("late setup of JobId=88") != std::string::npos);
  CHECK(messages::jobStartCalled(88) == "switchlua: job_start(): JobId=88");
  CHECK(messages::jobCompleteCalled(88) == "switchlua: job_complete(): JobId=88");
  // Only the drain line says "drained ... after a failed switch teardown".
  CHECK(messages::notDrained(88, nodes).find("after a failed switch teardown") == std::string::npos);
}
