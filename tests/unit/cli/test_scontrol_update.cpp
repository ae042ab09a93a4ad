#include <catch2/catch.hpp>

#include "cli/scontrol_update.h"
#include "cli/signal_names.h"

using namespace gantry::cli;

TEST_CASE("scontrol update builds a node update", "[cli][scontrol]") {
  auto request = parseNodeUpdate({"NodeName=gpu[1-2]", "state=drain", "Reason=ecc errors"});
  REQUIRE(request.ok());
  CHECK(request->node_names() == "gpu[1-2]");
  CHECK(request->state() == "DRAIN");
  CHECK(request->reason() == "ecc errors");
  auto resume = parseNodeUpdate({"nodename=n1", "State=RESUME"});
  REQUIRE(resume.ok());
  CHECK(resume->state() == "RESUME");
}

TEST_CASE("scontrol update errors name the word and rule", "[cli][scontrol]") {
  CHECK_THAT(parseNodeUpdate({"NodeName=n1", "State=SLEEPY"}).error(),
             Catch::Contains("State=SLEEPY: expected DOWN, DRAIN, RESUME, IDLE or UNDRAIN"));
  CHECK_THAT(parseNodeUpdate({"NodeName=n1", "State=DOWN"}).error(),
             Catch::Contains("State=DOWN requires Reason"));
  CHECK_THAT(parseNodeUpdate({"State=IDLE"}).error(), Catch::Contains("NodeName=<nodes> is required"));
  CHECK_THAT(parseNodeUpdate({"NodeName=n1", "Weight=3"}).error(),
             Catch::Contains("unknown key 'Weight'"));
  CHECK_THAT(parseNodeUpdate({"NodeName=n1", "drain"}).error(),
             Catch::Contains("'drain' is not of the form Key=Value"));
  CHECK_THAT(parseNodeUpdate({"NodeName=n1"}).error(), Catch::Contains("nothing to change"));
}

TEST_CASE("scancel signal names", "[cli][scancel]") {
  CHECK(*parseSignal("KILL") == 9);
  CHECK(*parseSignal("SIGTERM") == 15);
  CHECK(*parseSignal("usr1") == 10);
  CHECK(*parseSignal("2") == 2);
  CHECK_THAT(parseSignal("99").error(), Catch::Contains("1 to 64"));
  CHECK_THAT(parseSignal("NOPE").error(), Catch::Contains("invalid signal 'NOPE'"));
}
