#include <catch2/catch.hpp>

#include <algorithm>

#include "cli/help_flags.h"
#include "cli/json_render.h"
#include "cli/scontrol_render.h"
#include "cli_fixtures.h"

using namespace gantry::cli;
using namespace cli_fixtures;

namespace {

RenderOptions options(bool details) {
  useUtc();
  return RenderOptions{.details = details,
                       .now = kNow,
                       .groupName = [](uint32_t gid) { return gid == 100 ? "users" : "alice"; }};
}

}  // namespace

TEST_CASE("scontrol show job", "[cli][scontrol]") {
  std::string out = joinRecords({renderJob(runningGpuJob(), options(false)),
                                 renderJob(pendingJob(), options(false))});
  CHECK(out == golden("show_job.txt", out));
  CHECK_THAT(out, Catch::StartsWith("JobId=12 JobName=train\n   UserId=alice(1000) "));
  CHECK_THAT(out, Catch::Contains("\n\nJobId=13 "));
  CHECK_THAT(out, Catch::Contains("GresEnforceLinks=Yes"));
}

TEST_CASE("scontrol show job: what is left of a dependency follows the reason", "[cli][scontrol][dependency]") {
  gantry::v1::Job job = pendingJob();
  job.set_reason("Dependency");
  job.set_dependency("afterok:7(unfulfilled)?afternotok:8(failed)");
  std::string out = renderJob(job, options(false));
  CHECK_THAT(out, Catch::Contains(
                      "\n   JobState=PENDING Reason=Dependency Dependency=afterok:7(unfulfilled)?afternotok:8(failed)\n"));
}

TEST_CASE("scontrol show job -d lists each node's allocation", "[cli][scontrol]") {
  std::string out = renderJob(runningGpuJob(), options(true));
  CHECK(out == golden("show_job_detail.txt", out));
  CHECK_THAT(out, Catch::Contains("\n     Nodes=gpu1 CPU_IDs=0-3 Mem=8192 GRES=gpu:a100:2(IDX:0-1)\n"));
}

TEST_CASE("scontrol show node", "[cli][scontrol]") {
  auto nodes = clusterNodes();
  std::string out = joinRecords({renderNode(nodes[2], options(false)),
                                 renderNode(nodes[3], options(false))});
  CHECK(out == golden("show_node.txt", out));
  CHECK_THAT(out, Catch::Contains("Reason=bad dimm [root@2026-11-30T09:00:00]"));
  CHECK_THAT(out, !Catch::Contains("GresUsed="));
}

TEST_CASE("scontrol show node -d adds GresUsed", "[cli][scontrol]") {
  std::string out = renderNode(clusterNodes()[3], options(true));
  CHECK(out == golden("show_node_detail.txt", out));
  CHECK_THAT(out, Catch::Contains("   GresUsed=gpu:a100:2(IDX:0-1)\n"));
}

TEST_CASE("scontrol show partition", "[cli][scontrol]") {
  std::vector<std::string> records;
  for (const auto& partition : clusterPartitions()) {
    records.push_back(renderPartition(partition, options(false)));
  }
  std::string out = joinRecords(records);
  CHECK(out == golden("show_partition.txt", out));
}

TEST_CASE("scontrol show config", "[cli][scontrol]") {
  std::vector<gantry::v1::ConfigEntry> entries(2);
  entries[0].set_key("SchedulerTimeSlice");
  entries[0].set_value("30");
  entries[1].set_key("SchedulerType");
  entries[1].set_value("sched/gang");
  std::string out = renderConfig(entries, options(false));
  CHECK(out == "Configuration data as of 2026-11-30T10:00:00\n"
               "SchedulerTimeSlice      = 30\n"
               "SchedulerType           = sched/gang\n");
}

TEST_CASE("--json keeps proto field names and numbers", "[cli][json]") {
  auto json = listToJson("jobs", std::vector<gantry::v1::Job>{runningGpuJob()});
  REQUIRE(json["jobs"].size() == 1);
  const auto& job = json["jobs"][0];
  CHECK(job["job_id"] == 12);
  CHECK(job["state"] == "RUNNING");
  CHECK(job["spec"]["gpus_per_node"] == 2);
  CHECK(job["spec"]["mem_per_node_mb"] == 8192);
  CHECK(job["allocation"][0]["cores"].size() == 4);
  CHECK(job["time_limit_minutes"] == 90);
  CHECK(job["exit_code"] == 0);  // defaults are printed too
}

TEST_CASE("scontrol show node -d adds GresChunks and the registered devices", "[cli][scontrol]") {
  gantry::v1::Node node = clusterNodes()[3];
  node.set_gres_chunks("gpu:a100:sizes=2/4;order=0/1/2/3");
  node.add_gres_devices("gpu:a100 Index=0 File=/dev/nvidia0 Cores=0-3 Links=-1,2,0,0");
  node.add_gres_devices("gpu:a100 Index=1 File=/dev/nvidia1 Cores=0-3 Links=2,-1,0,0");
  std::string out = renderNode(node, options(true));
  CHECK_THAT(out, Catch::Contains("   GresUsed=gpu:a100:2(IDX:0-1)\n"
                                  "   GresChunks=gpu:a100:sizes=2/4;order=0/1/2/3\n"
                                  "   GresDevice=gpu:a100 Index=0 File=/dev/nvidia0 Cores=0-3 Links=-1,2,0,0\n"
                                  "   GresDevice=gpu:a100 Index=1 File=/dev/nvidia1 Cores=0-3 Links=2,-1,0,0\n"));
  // Without -d, and on nodes without chunks, neither appears.
  CHECK_THAT(renderNode(node, options(false)), !Catch::Contains("GresChunks") && !Catch::Contains("GresDevice"));
  CHECK_THAT(renderNode(clusterNodes()[3], options(true)), !Catch::Contains("GresChunks"));
}

namespace {

std::vector<StepRow> stepsOfJob12() {
  return selectSteps({runningGpuJobWithSteps()}, StepSelection{});
}

}  // namespace

TEST_CASE("scontrol show step: one running step", "[cli][scontrol][steps]") {
  std::string out = renderStep(stepsOfJob12()[0], options(false));
  CHECK(out == golden("show_step.txt", out));
  CHECK(out ==
        "StepId=12.0 UserId=alice(1000) StartTime=2026-11-30T09:58:20 TimeLimit=UNLIMITED\n"
        "   State=RUNNING Partition=gpu NodeList=gpu[1-2]\n"
        "   Nodes=2 CPUs=4 Tasks=4 Name=train.py\n"
        "   TRES=cpu=4,mem=16384M,node=2\n");
}

TEST_CASE("scontrol show step -d lists each node of the step", "[cli][scontrol][steps]") {
  std::string out = renderStep(stepsOfJob12()[0], options(true));
  CHECK_THAT(out, Catch::EndsWith("   TRES=cpu=4,mem=16384M,node=2\n"
                                  "     Nodes=gpu1 CPU_IDs=0-1 Mem=8192 GRES=gpu:a100:2(IDX:0-1)\n"
                                  "     Nodes=gpu2 CPU_IDs=0-1 Mem=8192 GRES=gpu:a100:2(IDX:0-1)\n"));
}

TEST_CASE("scontrol show step for a job: every step, ended ones with their end", "[cli][scontrol][steps]") {
  std::vector<std::string> records;
  for (const auto& row : stepsOfJob12()) records.push_back(renderStep(row, options(false)));
  std::string out = joinRecords(records);
  CHECK(out == golden("show_step_job.txt", out));
  CHECK_THAT(out, Catch::Contains("StepId=12.1 ") && Catch::Contains("\n\nStepId=12.2 "));
  CHECK_THAT(out, Catch::Contains("   State=COMPLETED Partition=gpu NodeList=gpu1\n"));
  CHECK_THAT(out, Catch::Contains("   State=FAILED Partition=gpu NodeList=gpu1\n"));
  CHECK_THAT(out, Catch::Contains("   EndTime=2026-11-30T09:58:31 ExitCode=1\n"));
}

TEST_CASE("scontrol show job names the --exclusive form in OverSubscribe", "[cli][scontrol][exclusive]") {
  struct Case {
    bool wholeNode;
    const char* mode;
    const char* shown;
  };
  for (const Case& c : std::vector<Case>{{false, "", "OverSubscribe=OK\n"},
                                         {true, "", "OverSubscribe=NO\n"},
                                         {false, "user", "OverSubscribe=USER\n"},
                                         {false, "mcs", "OverSubscribe=MCS\n"},
                                         {true, "topo", "OverSubscribe=TOPO\n"}}) {
    gantry::v1::Job job = pendingJob();
    job.mutable_spec()->set_exclusive(c.wholeNode);
    job.mutable_spec()->set_exclusive_mode(c.mode);
    CHECK_THAT(renderJob(job, options(false)), Catch::Contains(c.shown));
  }
  gantry::v1::Job sharing = pendingJob();
  sharing.mutable_spec()->set_oversubscribe(true);
  CHECK_THAT(renderJob(sharing, options(false)), Catch::Contains("OverSubscribe=YES\n"));
  CHECK_THAT(renderJob(sharing, options(false)), !Catch::Contains("Network="));
  sharing.mutable_spec()->set_network("ib0");
  CHECK_THAT(renderJob(sharing, options(false)), Catch::Contains("Network=ib0\n"));
}

TEST_CASE("-o/--oneliner puts each record on one line", "[cli][scontrol][oneliner]") {
  std::string detailed = renderJob(runningGpuJob(), options(true));
  std::string line = oneLineRecord(detailed);
  CHECK(std::count(line.begin(), line.end(), '\n') == 1);
  CHECK_THAT(line, Catch::StartsWith("JobId=12 JobName=train UserId=alice(1000) "));
  // The detail line's own indentation becomes one space too.
  CHECK_THAT(line, Catch::Contains(" Nodes=gpu1 CPU_IDs=0-3 Mem=8192 GRES=gpu:a100:2(IDX:0-1)"));
  CHECK(line.find("  ") == std::string::npos);

  std::string two = joinRecords({"A=1\n   B=2\n", "C=3\n   D=4 E=5\n"}, true);
  CHECK(two == "A=1 B=2\nC=3 D=4 E=5\n");
  CHECK(joinRecords({"A=1\n   B=2\n", "C=3\n"}) == "A=1\n   B=2\n\nC=3\n");
}

TEST_CASE("--json answers carry Slurm's data_parser envelope", "[cli][json]") {
  JsonMeta meta{.command = {"squeue", "--json"},
                .source = "/dev/pts/7",
                .user = "carol",
                .group = "lab",
                .cluster = "orion",
                .accountingStorage = "accounting_storage/none"};
  nlohmann::json out = withEnvelope(nlohmann::json{{"jobs", nlohmann::json::array()}}, meta);
  CHECK(out["jobs"] == nlohmann::json::array());
  CHECK(out["errors"] == nlohmann::json::array());
  CHECK(out["warnings"] == nlohmann::json::array());
  CHECK(out["meta"]["command"] == nlohmann::json({"squeue", "--json"}));
  CHECK(out["meta"]["plugin"]["data_parser"] == "data_parser/v0.0.44");
  CHECK(out["meta"]["plugin"]["accounting_storage"] == "accounting_storage/none");
  CHECK(out["meta"]["plugin"]["type"] == "");
  CHECK(out["meta"]["client"] == nlohmann::json({{"source", "/dev/pts/7"}, {"user", "carol"}, {"group", "lab"}}));
  CHECK(out["meta"]["slurm"]["release"] == kSlurmVersion);
  CHECK(out["meta"]["slurm"]["version"] == nlohmann::json({{"major", "26"}, {"minor", "11"}, {"micro", "0"}}));
  CHECK(out["meta"]["slurm"]["cluster"] == "orion");
}

TEST_CASE("scontrol show job prints TresBind= when set and Contiguous= always", "[cli][scontrol][tres-bind]") {
  gantry::v1::Job job = pendingJob();
  CHECK_THAT(renderJob(job, options(false)), !Catch::Contains("TresBind=") && Catch::Contains("   Contiguous=0\n"));
  job.mutable_spec()->set_tres_bind("gres/gpu:map:2,3+gres/nic:closest");
  job.mutable_spec()->set_contiguous(true);
  CHECK_THAT(renderJob(job, options(false)),
             Catch::Contains("   TresBind=gres/gpu:map:2,3+gres/nic:closest\n") && Catch::Contains("   Contiguous=1\n"));
}

TEST_CASE("scontrol show job writes --gpu-bind, --gpu-freq and --gpus-per-task in their TRES forms",
          "[cli][scontrol][tres-bind]") {
  gantry::v1::Job job = pendingJob();
  auto* spec = job.mutable_spec();
  spec->set_gpu_bind("single:2");
  spec->set_gpu_freq("low,memory=high");
  spec->set_gpus_per_task(3);
  std::string out = renderJob(job, options(false));
  CHECK_THAT(out, Catch::Contains("TresBind=gres/gpu:single:2\n"));
  CHECK_THAT(out, Catch::Contains("TresFreq=gpu:low,memory=high\n"));
  CHECK_THAT(out, Catch::Contains("TresPerTask=gres/gpu=3\n"));
  spec->set_tres_bind("gres/gpu:closest");  // --tres-bind wins over --gpu-bind
  CHECK_THAT(renderJob(job, options(false)), Catch::Contains("TresBind=gres/gpu:closest\n"));
}

TEST_CASE("scontrol show job prints ReqTRES= and AllocTRES= when the controller sent them", "[cli][scontrol][tres]") {
  gantry::v1::Job job = pendingJob();
  CHECK_THAT(renderJob(job, options(false)), !Catch::Contains("ReqTRES="));
  job.set_req_tres("cpu=6,mem=3G,node=2,billing=6,gres/gpu=4");
  std::string pending = renderJob(job, options(false));
  CHECK_THAT(pending, Catch::Contains("   ReqTRES=cpu=6,mem=3G,node=2,billing=6,gres/gpu=4\n   AllocTRES=(null)\n"));
  job.set_alloc_tres("cpu=8,mem=3G,node=2,billing=8,gres/gpu=4");
  CHECK_THAT(renderJob(job, options(false)), Catch::Contains("   AllocTRES=cpu=8,mem=3G,node=2,billing=8,gres/gpu=4\n"));
}

TEST_CASE("scontrol show job writes --ntasks-per-socket in NtasksPerN:B:S:C", "[cli][scontrol]") {
  gantry::v1::Job job = pendingJob();
  CHECK_THAT(renderJob(job, options(false)), Catch::Contains("NtasksPerN:B:S:C=0:0:*:*"));
  job.mutable_spec()->set_ntasks_per_socket(3);
  CHECK_THAT(renderJob(job, options(false)), Catch::Contains("NtasksPerN:B:S:C=0:0:3:*"));
}
