#include <catch2/catch.hpp>

#include <ctime>

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
             Catch::Contains("State=SLEEPY: expected DOWN, DRAIN, FAIL, RESUME, RESUME_KEEP_TRES, IDLE or UNDRAIN"));
  CHECK_THAT(parseNodeUpdate({"NodeName=n1", "State=DOWN"}).error(),
             Catch::Contains("State=DOWN requires Reason"));
  CHECK_THAT(parseNodeUpdate({"State=IDLE"}).error(), Catch::Contains("NodeName=<nodes> is required"));
  CHECK_THAT(parseNodeUpdate({"NodeName=n1", "Weight=3"}).error(),
             Catch::Contains("unknown key 'Weight'"));
  CHECK_THAT(parseNodeUpdate({"NodeName=n1", "drain"}).error(),
             Catch::Contains("'drain' is not of the form Key=Value"));
  CHECK_THAT(parseNodeUpdate({"NodeName=n1"}).error(), Catch::Contains("nothing to change"));
}

TEST_CASE("scontrol update State=FAIL: accepted in any case, and only with a reason", "[cli][scontrol]") {
  auto request = parseNodeUpdate({"NodeName=rack7-[01-04]", "State=fail", "Reason=pdu tripped"});
  REQUIRE(request.ok());
  CHECK(request->state() == "FAIL");
  CHECK(request->reason() == "pdu tripped");
  CHECK_THAT(parseNodeUpdate({"NodeName=rack7-01", "State=Fail"}).error(),
             Catch::Contains("State=FAIL requires Reason"));
  CHECK_THAT(parseNodeUpdate({"NodeName=rack7-01", "State=FAIL", "Reason="}).error(),
             Catch::Contains("State=FAIL requires Reason"));
}

TEST_CASE("scontrol update: per-device drain words and node states", "[cli][scontrol][drain]") {
  struct Row {
    const char* rule;
    std::vector<std::string> words;
    bool tres;
  };
  const Row rows[] = {
      {"TresName= makes a TRES update", {"TresName=gres/nic", "NodeName=fab[2-3]", "Index=1", "Action=Drain"}, true},
      {"TresName is recognised in any case", {"NodeName=fab2", "tresname=cpu", "Action=Resume"}, true},
      {"TRESNAME upper case too", {"TRESNAME=mem", "NodeName=fab2"}, true},
      {"TresName anywhere among the words", {"NodeName=fab2", "Count=2", "TresName=gres/scratch"}, true},
      {"a node update has no TresName", {"NodeName=fab2", "State=DRAIN", "Reason=fan"}, false},
      {"a Reason mentioning TresName= is not a key", {"NodeName=fab2", "State=DRAIN", "Reason=TresName"}, false},
      {"TresNames= is another key", {"TresNames=gpu", "NodeName=fab2"}, false},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    CHECK(isTresUpdate(row.words) == row.tres);
  }
  for (const char* state : {"RESUME_KEEP_TRES", "resume_keep_tres", "UNDRAIN", "Resume"}) {
    INFO("State=" << state << " is accepted");
    auto request = parseNodeUpdate({"NodeName=fab[1-4]", std::string("State=") + state});
    REQUIRE(request.ok());
  }
  CHECK(parseNodeUpdate({"NodeName=fab1", "State=resume_keep_tres"})->state() == "RESUME_KEEP_TRES");
}

TEST_CASE("scontrol show drainedtres: which nodes", "[cli][scontrol][drain]") {
  struct Row {
    const char* rule;
    std::vector<std::string> rest;
    bool ok;
    std::string expect;  // the host list, or the start of the error
  };
  const Row rows[] = {
      {"no words: every node", {}, true, ""},
      {"a host list as it is", {"fab[3-5]"}, true, "fab[3-5]"},
      {"NodeName= in any case", {"nodeNAME=fab7"}, true, "fab7"},
      {"another key is refused", {"Partition=gpu"}, false, "show drainedtres: unknown option 'Partition=gpu'"},
      {"an empty NodeName= is refused", {"NodeName="}, false, "show drainedtres: NodeName= is empty"},
      {"two host lists are refused", {"fab1", "fab2"}, false, "show drainedtres: give at most one host list, got 2"},
      {"a bad host list is refused", {"fab[3-"}, false, "show drainedtres: "},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    auto nodes = parseDrainedTresNodes(row.rest);
    REQUIRE(nodes.ok() == row.ok);
    if (row.ok) {
      CHECK(*nodes == row.expect);
    } else {
      CHECK_THAT(nodes.error(), Catch::StartsWith(row.expect));
    }
  }
}

TEST_CASE("scancel signal names", "[cli][scancel]") {
  CHECK(*parseSignal("KILL") == 9);
  CHECK(*parseSignal("SIGTERM") == 15);
  CHECK(*parseSignal("usr1") == 10);
  CHECK(*parseSignal("2") == 2);
  CHECK_THAT(parseSignal("99").error(), Catch::Contains("1 to 64"));
  CHECK_THAT(parseSignal("NOPE").error(), Catch::Contains("invalid signal 'NOPE'"));
}

TEST_CASE("scontrol update JobId= builds a job update with only the fields given", "[cli][scontrol][job_update]") {
  CHECK(isJobUpdate({"TimeLimit=5", "jobid=31"}));
  CHECK_FALSE(isJobUpdate({"NodeName=n1", "State=DRAIN"}));
  auto request = parseJobUpdate({"JobId=31", "TimeLimit=1-02:00:00", "name=renamed", "Comment=two words",
                                 "Priority=250", "Partition=big", "NumNodes=3"});
  REQUIRE(request.ok());
  CHECK(request->job_id() == 31);
  CHECK(request->time_limit_minutes() == 26 * 60);
  CHECK(request->name() == "renamed");
  CHECK(request->comment() == "two words");
  CHECK(request->priority() == 250);
  CHECK(request->partition() == "big");
  CHECK(request->num_nodes() == 3);
  auto some = parseJobUpdate({"jobid=31", "JobName=other", "TimeLimit=UNLIMITED"});
  REQUIRE(some.ok());
  CHECK(some->name() == "other");
  CHECK(some->time_limit_minutes() == -1);
  CHECK_FALSE(some->has_comment());
  CHECK_FALSE(some->has_priority());
  CHECK_FALSE(some->has_partition());
  CHECK_FALSE(some->has_num_nodes());
  CHECK(parseJobUpdate({"JobId=31", "NumNodes=2-2"})->num_nodes() == 2);
}

TEST_CASE("scontrol update JobId= refusals read as Slurm's", "[cli][scontrol][job_update]") {
  struct Row {
    const char* rule;
    std::vector<std::string> words;
    const char* error;
  };
  const std::vector<Row> rows = {
      {"a bad time limit", {"JobId=31", "TimeLimit=soon"}, "Invalid TimeLimit value"},
      {"a bad priority", {"JobId=31", "Priority=high"}, "Invalid Priority value: high"},
      {"a node range", {"JobId=31", "NumNodes=2-4"}, "Invalid NumNodes value: 2-4"},
      {"a key Gantry does not change", {"JobId=31", "Features=fast"},
       "Update of this parameter is not supported: Features=fast"},
      {"a bare word", {"JobId=31", "now"}, "Invalid input: now"},
      {"a key shorter than Slurm's shortest", {"JobId=31", "Tres=x"}, "Update of this parameter is not supported: Tres=x"},
      {"a bad job id", {"JobId=abc", "Name=x"}, "Invalid job id specified: abc"},
      {"nothing to change", {"JobId=31"}, "update: nothing to change for job 31"},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    auto parsed = parseJobUpdate(row.words);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error() == row.error);
  }
}

TEST_CASE("scontrol update JobId= Dependency= and StartTime=", "[cli][scontrol][dependency]") {
  auto request = parseJobUpdate({"JobId=31", "Dependency=afterok:7,singleton", "StartTime=now+2hours"});
  REQUIRE(request.ok());
  CHECK(request->dependency() == "afterok:7,singleton");
  int64_t later = static_cast<int64_t>(std::time(nullptr)) + 7200;
  CHECK(request->begin_time() >= later - 60);
  CHECK(request->begin_time() <= later + 60);
  auto cleared = parseJobUpdate({"JobId=31", "Dependency="});
  REQUIRE(cleared.ok());
  CHECK(cleared->has_dependency());
  CHECK(cleared->dependency().empty());
  CHECK_FALSE(cleared->has_begin_time());
  auto bad = parseJobUpdate({"JobId=31", "StartTime=whenever"});
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error(), Catch::StartsWith("Invalid StartTime value"));
}

TEST_CASE("scontrol update JobId=N TresBind=... is a job update", "[cli][scontrol][tres-bind]") {
  CHECK(isJobUpdate({"JobId=71", "TresBind=gres/gpu:closest"}));
  CHECK(isJobUpdate({"TresBind=gres/gpu:closest", "jobid=71"}));
  CHECK(isJobUpdate({"Job=71", "TresBind="}));
  CHECK_FALSE(isJobUpdate({"NodeName=n1", "State=RESUME"}));
  auto request = parseJobUpdate({"jobid=71", "tresbind=gres/gpu:mask:0x5"});
  REQUIRE(request.ok());
  CHECK(request->job_id() == 71);
  REQUIRE(request->has_tres_bind());
  CHECK(request->tres_bind() == "gres/gpu:mask:0x5");
  // An empty value is sent: it clears the binding.
  auto clear = parseJobUpdate({"JobId=71", "TresB="});
  REQUIRE(clear.ok());
  CHECK(clear->has_tres_bind());
  CHECK(clear->tres_bind().empty());
}

TEST_CASE("scontrol update JobId=N Gres=... or TresPerNode=... replaces the per-node GRES", "[cli][scontrol]") {
  auto gres = parseJobUpdate({"JobId=44", "Gres=gpu:l40:3,nic:1"});
  REQUIRE(gres.ok());
  REQUIRE(gres->has_gres_per_node());
  REQUIRE(gres->gres_per_node().items_size() == 2);
  CHECK(gres->gres_per_node().items(0).name() == "gpu");
  CHECK(gres->gres_per_node().items(0).type() == "l40");
  CHECK(gres->gres_per_node().items(0).count() == 3);
  CHECK(gres->gres_per_node().items(1).name() == "nic");
  // The form scontrol show job prints is read back.
  auto tres = parseJobUpdate({"tresPerNode=gres/gpu:2", "JobId=44"});
  REQUIRE(tres.ok());
  REQUIRE(tres->gres_per_node().items_size() == 1);
  CHECK(tres->gres_per_node().items(0).count() == 2);
  // Empty: none at all, still an update.
  auto none = parseJobUpdate({"JobId=44", "Gres="});
  REQUIRE(none.ok());
  CHECK(none->has_gres_per_node());
  CHECK(none->gres_per_node().items_size() == 0);
  auto bare = parseJobUpdate({"JobId=44", "TresPerNode=gpu:2"});
  REQUIRE_FALSE(bare.ok());
  CHECK_THAT(bare.error(), Catch::Contains("Invalid TresPerNode value: gpu:2"));
  auto malformed = parseJobUpdate({"JobId=44", "Gres=gpu:abc:x"});
  REQUIRE_FALSE(malformed.ok());
  CHECK_THAT(malformed.error(), Catch::StartsWith("Invalid generic resource (gres) specification: gpu:abc:x"));
}
