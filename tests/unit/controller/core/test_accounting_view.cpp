// What accounting records of a job, one row per rule (accounting_view.h),
// and the node events a node's state asks for (node_accounting.h).
#include <catch2/catch.hpp>

#include "controller/core/accounting_codec.h"
#include "controller/core/accounting_view.h"
#include "controller/core/node_accounting.h"
#include "controller/rpc/views.h"

using namespace gantry;
using core::JobState;

namespace {

// One node, x7: eight cores, two a40 GPUs.
select::Cluster oneNodeCluster() {
  select::Cluster cluster;
  select::NodeInfo node;
  node.name = "x7";
  node.coresPerSocket = 8;
  node.realMemoryMb = 64000;
  for (int i = 0; i < 2; ++i) {
    gres::DeviceInfo gpu;
    gpu.name = "gpu";
    gpu.type = "a40";
    node.devices.push_back(gpu);
  }
  cluster.addNode(node);
  return cluster;
}

core::AccountingScope scopeOf(std::vector<std::string> tracked, bool externSteps = false) {
  core::AccountingScope scope;
  scope.cluster = "viewunit";
  scope.externSteps = externSteps;
  auto set = accounting::trackedTresFrom(tracked);
  REQUIRE(set.ok());
  scope.tracked = *set;
  return scope;
}

core::JobRecord runningBatchJob() {
  core::JobRecord job;
  job.id = 812;
  job.user = "lin";
  job.uid = 5001;
  job.gid = 5002;
  job.spec.set_name("sweep");
  job.spec.set_script("#!/bin/sh\n");
  job.spec.set_partition("gpu");
  job.spec.set_ntasks(3);
  job.spec.set_gpus(1);
  job.spec.set_mem_per_node_mb(3072);
  job.submitTime = 5000;
  job.eligibleTime = 5000;
  job.startTime = 5010;
  job.state = JobState::Running;
  job.timeLimitSeconds = 150;
  select::NodeGrant grant;
  grant.node = 0;
  grant.cores = {0, 1, 2};
  grant.memoryMb = 3072;
  grant.devices = {1};
  job.allocation.nodes.push_back(grant);
  job.nodeNames = {"x7"};
  return job;
}

}  // namespace

TEST_CASE("accounting view: the job record follows the job", "[accounting][view]") {
  auto cluster = oneNodeCluster();
  auto scope = scopeOf({"gres/gpu"});
  auto job = runningBatchJob();
  auto records = core::accountingRecordsOf(job, cluster, scope);
  REQUIRE(records.size() == 2);
  const auto& whole = records[0];
  CHECK(whole.stepId.empty());
  CHECK(whole.cluster == "viewunit");
  CHECK(whole.state == "RUNNING");
  CHECK(whole.endTime == 0);
  CHECK(whole.timeLimitMinutes == std::optional<uint32_t>(3));  // 150 s rounds up
  CHECK(whole.allocCpus == 3);
  CHECK(whole.allocTres == "billing=3,cpu=3,gres/gpu=1,gres/gpu:a40=1,mem=3G,node=1");
  CHECK(whole.reqTres == "billing=3,cpu=3,gres/gpu=1,mem=3G,node=1");
  CHECK(whole.nodeList == "x7");
  CHECK(records[1].stepId == "batch");
  CHECK(records[1].nodeList == "x7");
  job.spec.set_account("chem");
  job.spec.set_comment("sweep 4 of 9");
  records = core::accountingRecordsOf(job, cluster, scope);
  CHECK(records[0].account == "chem");
  CHECK(records[1].account == "chem");
  CHECK(records[0].comment == "sweep 4 of 9");
}

TEST_CASE("accounting view: one row per rule", "[accounting][view]") {
  auto cluster = oneNodeCluster();
  struct Row {
    const char* rule;
    std::function<void(core::JobRecord&)> change;
    std::function<void(const std::vector<accounting::JobRecord>&)> check;
    bool externSteps = false;
  };
  const Row rows[] = {
      {"a pending job has no steps and no allocation",
       [](auto& job) {
         job.state = JobState::Pending;
         job.startTime = 0;
         job.nodeNames.clear();
         job.allocation.nodes.clear();
       },
       [](const auto& r) {
         REQUIRE(r.size() == 1);
         CHECK(r[0].state == "PENDING");
         CHECK(r[0].allocTres.empty());
       }},
      {"a job being set up shows as running",
       [](auto& job) { job.state = JobState::Configuring; },
       [](const auto& r) { CHECK(r[0].state == "RUNNING"); }},
      {"an unlimited job has no time limit", [](auto& job) { job.timeLimitSeconds = -1; },
       [](const auto& r) { CHECK_FALSE(r[0].timeLimitMinutes.has_value()); }},
      {"a cancelled job names who cancelled it and its steps are cancelled",
       [](auto& job) {
         job.state = JobState::Cancelled;
         job.endTime = 5100;
         job.cancelledBy = 77;
       },
       [](const auto& r) {
         CHECK(r[0].cancelledByUid == std::optional<uint32_t>(77));
         CHECK(r[1].state == "CANCELLED");
         CHECK(r[1].endTime == 5100);
       }},
      {"a timed out job's batch step was cancelled",
       [](auto& job) {
         job.state = JobState::Timeout;
         job.endTime = 5200;
       },
       [](const auto& r) {
         CHECK(r[0].state == "TIMEOUT");
         CHECK(r[1].state == "CANCELLED");
       }},
      {"a failed job's exit code and signal are kept",
       [](auto& job) {
         job.state = JobState::Failed;
         job.endTime = 5300;
         job.exitCode = 0;
         job.termSignal = 9;
       },
       [](const auto& r) {
         CHECK(r[0].exitCode == accounting::ExitCode{0, 9});
         CHECK(r[1].exitCode == accounting::ExitCode{0, 9});
         CHECK(r[1].state == "FAILED");  // killed by a signal, whatever its exit code
       }},
      {"a step that ended before its job was cancelled keeps its own state; one cut short is cancelled",
       [](auto& job) {
         core::StepRecord done, cut;
         done.id = 0, done.exitCode = 0, done.startTime = 5020, done.endTime = 5050, done.nodes = {"x7"};
         cut.id = 1, cut.exitCode = 15, cut.startTime = 5060, cut.endTime = 5100, cut.nodes = {"x7"};
         job.steps[0] = done;
         job.steps[1] = cut;
         job.state = JobState::Cancelled;
         job.endTime = 5100;
       },
       [](const auto& r) {
         REQUIRE(r.size() == 4);
         CHECK(r[2].state == "COMPLETED");
         CHECK(r[3].state == "CANCELLED");
       }},
      {"an end before the start (the node's clock behind) is recorded at the start",
       [](auto& job) {
         job.state = JobState::Completed;
         job.endTime = 4990;
       },
       [](const auto& r) {
         CHECK(r[0].endTime == 5010);
         CHECK(r[1].endTime == 5010);
       }},
      {"the derived exit code is the highest of the numbered steps",
       [](auto& job) {
         core::StepRecord a, b;
         a.id = 0, a.exitCode = 2, a.startTime = 5020, a.endTime = 5030, a.nodes = {"x7"};
         b.id = 1, b.exitCode = 5, b.startTime = 5040, b.endTime = 5050, b.nodes = {"x7"};
         job.steps[0] = a;
         job.steps[1] = b;
       },
       [](const auto& r) {
         CHECK(r[0].derivedExitCode.code == 5);
         REQUIRE(r.size() == 4);
         CHECK(r[2].stepId == "0");
         CHECK(r[2].state == "FAILED");
         CHECK(r[3].exitCode.code == 5);
       }},
      {"a step still running has no end",
       [](auto& job) {
         core::StepRecord s;
         s.id = 3, s.startTime = 5020, s.nodes = {"x7"}, s.nodesLeft = {"x7"};
         job.steps[3] = s;
       },
       [](const auto& r) {
         CHECK(r.back().stepId == "3");
         CHECK(r.back().state == "RUNNING");
         CHECK(r.back().endTime == 0);
       }},
      {"a requeued job's run is keyed by its requeue time and steps of the earlier run are left out",
       [](auto& job) {
         core::StepRecord old;
         old.id = 0, old.startTime = 5015, old.endTime = 5016, old.nodes = {"x7"};
         job.steps[0] = old;
         job.requeueTime = 5400;
         job.startTime = 5410;
       },
       [](const auto& r) {
         REQUIRE(r.size() == 2);
         CHECK(r[0].submitTime == 5400);
         CHECK(r[1].submitTime == 5400);
       }},
      {"PrologFlags=Contain adds the extern step over the job's nodes", [](auto&) {},
       [](const auto& r) {
         REQUIRE(r.size() == 3);
         CHECK(r[2].stepId == "extern");
         CHECK(r[2].allocTres == r[0].allocTres);
       },
       true},
      {"batch usage becomes the batch step's TRESUsageIn",
       [](auto& job) {
         accounting::TaskUsageSample t0{.node = "x7", .task = 0, .cpuSeconds = 30, .memBytes = 2048 * 1024};
         accounting::TaskUsageSample t1{.node = "x7", .task = 1, .cpuSeconds = 90, .memBytes = 1024 * 1024};
         t0.gpuMemBytes = 512ull << 20;
         job.batchUsage = {t0, t1};
       },
       [](const auto& r) {
         CHECK(r[1].usageIn.tot.find("cpu=00:02:00") != std::string::npos);
         CHECK(r[1].usageIn.max.find("mem=2048K") != std::string::npos);
         CHECK(r[1].usageIn.maxTask.find("cpu=1") != std::string::npos);
         CHECK(r[1].usageIn.tot.find("gres/gpumem=512M") != std::string::npos);
         CHECK(r[0].usageIn.tot.empty());  // the job record itself carries none
       }},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    auto job = runningBatchJob();
    row.change(job);
    row.check(core::accountingRecordsOf(job, cluster, scopeOf({"gres/gpu"}, row.externSteps)));
  }
}

TEST_CASE("accounting view: the stored form of a job gives the records the core's record gives",
          "[accounting][view]") {
  // The journal builds records on the store's writer thread from the job's
  // stored form and the allocations' counts (jobHeldTresOf), never from
  // the core's record: whatever a record shows must survive that trip.
  select::Cluster cluster;
  for (const char* name : {"x7", "x8"}) {
    select::NodeInfo node;
    node.name = name;
    node.coresPerSocket = 4;
    node.threadsPerCore = 2;
    node.realMemoryMb = 32000;
    for (const char* type : {"l40s", "l40s", "h100"}) {
      gres::DeviceInfo gpu;
      gpu.name = "gpu";
      gpu.type = type;
      node.devices.push_back(gpu);
    }
    cluster.addNode(node);
  }
  struct Row {
    const char* rule;
    std::function<void(core::JobRecord&)> change;
  };
  const Row rows[] = {
      {"a running batch job", [](auto&) {}},
      {"a pending job", [](auto& job) {
         job.state = JobState::Pending;
         job.startTime = 0;
         job.nodeNames.clear();
         job.allocation.nodes.clear();
       }},
      {"two nodes: devices of two types, shares, count GRES, the batch host's part",
       [](auto& job) {
         select::NodeGrant second;
         second.node = 1;
         second.cores = {0, 1};
         second.memoryMb = 1000;
         second.devices = {0, 2};
         second.shares = {{.name = "shard", .device = 1, .count = 3}};
         second.countGres = {{"tok", 2}, {"lic:site", 1}};
         job.allocation.nodes.push_back(second);
         job.nodeNames.push_back("x8");
       }},
      {"steps of this run and of an earlier one, one still running",
       [](auto& job) {
         core::StepRecord old, done, running;
         old.id = 0, old.startTime = 5011, old.endTime = 5012, old.nodes = {"x7"};
         old.allocation = job.allocation;
         done.id = 1, done.exitCode = 3, done.startTime = 5030, done.endTime = 5040, done.nodes = {"x7"};
         done.allocation = job.allocation;
         done.usage = {accounting::TaskUsageSample{.node = "x7", .task = 0, .cpuSeconds = 7, .memBytes = 4096}};
         running.id = 2, running.startTime = 5041, running.nodes = {"x7"}, running.nodesLeft = {"x7"};
         running.allocation = job.allocation;
         job.steps = {{0, old}, {1, done}, {2, running}};
         job.requeueTime = 5020;
         job.startTime = 5025;
       }},
      {"a cancelled job with its reason and usage",
       [](auto& job) {
         job.state = JobState::Cancelled;
         job.endTime = 5100;
         job.cancelledBy = 0;
         job.reason = core::JobReason::StepFailed;
         job.reasonDetail = "launch failed";
         job.batchUsage = {accounting::TaskUsageSample{.node = "x7", .task = 0, .cpuSeconds = 11, .memBytes = 8192}};
         job.spec.set_comment("c");
         job.spec.set_account("a");
       }},
  };
  auto scope = scopeOf({"gres/gpu"}, true);
  for (const auto& row : rows) {
    INFO(row.rule);
    auto job = runningBatchJob();
    job.allocation.nodes[0].cores = {0, 1, 2};
    row.change(job);
    v1::Job stored = views::jobToWire(job, cluster, views::kStoredDetail);
    core::JobRecord back = views::jobFromWire(stored, [](const std::string&) { return 0; });
    auto fromStored = core::accountingRecordsOf(back, core::jobHeldTresOf(job, cluster), scope);
    auto fromCore = core::accountingRecordsOf(job, cluster, scope);
    REQUIRE(fromStored.size() == fromCore.size());
    for (size_t i = 0; i < fromCore.size(); ++i) {
      INFO("record " << i << " (step '" << fromCore[i].stepId << "')");
      CHECK(fromStored[i] == fromCore[i]);
    }
  }
}

TEST_CASE("accounting view: what is held, in AllocTRES", "[accounting][view]") {
  struct Row {
    const char* rule;
    core::HeldTres held;
    const char* text;
  };
  using Gres = core::HeldTres::Gres;
  const Row rows[] = {
      {"nothing held, no text", {}, ""},
      {"billing follows the cpus; memory in its largest unit", {.nodes = 2, .cpus = 6, .memoryMb = 4096},
       "billing=6,cpu=6,mem=4G,node=2"},
      {"no memory asked, no mem", {.nodes = 1, .cpus = 1}, "billing=1,cpu=1,node=1"},
      {"devices by name and by type; runs of one kind summed",
       {.nodes = 1,
        .cpus = 2,
        .gres = {Gres{"gpu", "l40s", 2}, Gres{"gpu", "h100", 1}, Gres{"gpu", "l40s", 1}}},
       "billing=2,cpu=2,gres/gpu=4,gres/gpu:h100=1,gres/gpu:l40s=3,node=1"},
      {"shares and untyped counts have no typed entry",
       {.nodes = 1, .cpus = 1, .gres = {Gres{"shard", "", 5}, Gres{"tok", "", 2}, Gres{"zero", "", 0}}},
       "billing=1,cpu=1,gres/shard=5,gres/tok=2,node=1"},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    CHECK(core::heldTresText(row.held) == row.text);
  }
}

TEST_CASE("accounting view: a requeued run is closed as REQUEUED at the requeue", "[accounting][view]") {
  auto records = core::accountingRecordsOf(runningBatchJob(), oneNodeCluster(), scopeOf({}));
  auto closed = core::requeuedRun(records[0], 5500);
  CHECK(closed.state == "REQUEUED");
  CHECK(closed.endTime == 5500);
  CHECK(closed.submitTime == records[0].submitTime);
}

TEST_CASE("accounting view: TRES text units", "[accounting][view]") {
  struct Row {
    const char* rule;
    uint64_t memMb;
    const char* text;
  };
  const Row rows[] = {
      {"whole gibibytes print as G", 6144, "cpu=1,mem=6G"},
      {"whole tebibytes print as T", 2 * 1024 * 1024, "cpu=1,mem=2T"},
      {"anything else stays in M", 1500, "cpu=1,mem=1500M"},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    CHECK(core::tresText({{"cpu", 1}, {"mem", row.memMb}}) == row.text);
  }
}

TEST_CASE("accounting view: TRES in Slurm's id order for scontrol", "[accounting][view]") {
  struct Row {
    const char* rule;
    std::map<std::string, uint64_t> counts;
    const char* text;
  };
  const Row rows[] = {
      {"built-in TRES come in id order", {{"billing", 3}, {"cpu", 3}, {"mem", 2048}, {"node", 1}},
       "cpu=3,mem=2G,node=1,billing=3"},
      {"GRES follow by name", {{"gres/shard", 5}, {"cpu", 2}, {"gres/gpu", 1}, {"node", 2}},
       "cpu=2,node=2,gres/gpu=1,gres/shard=5"},
      {"nothing gives nothing", {}, ""},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    CHECK(core::tresTextInIdOrder(row.counts) == row.text);
  }
}

TEST_CASE("accounting view: ReqTRES from the request's forms", "[accounting][view]") {
  struct Row {
    const char* rule;
    std::function<void(v1::JobSpec&)> set;
    const char* text;
  };
  const Row rows[] = {
      {"cpus are tasks times cpus per task", [](auto& s) { s.set_ntasks(4), s.set_cpus_per_task(2); },
       "billing=8,cpu=8,node=1"},
      {"at least one cpu per node", [](auto& s) { s.set_min_nodes(3); }, "billing=3,cpu=3,node=3"},
      {"memory per cpu", [](auto& s) { s.set_ntasks(2), s.set_mem_per_cpu_mb(700); },
       "billing=2,cpu=2,mem=1400M,node=1"},
      {"gpus per node times nodes, with the type",
       [](auto& s) { s.set_min_nodes(2), s.set_gpus_per_node(3), s.set_gpu_type("l4"); },
       "billing=2,cpu=2,gres/gpu=6,gres/gpu:l4=6,node=2"},
      {"gpus per task times tasks", [](auto& s) { s.set_ntasks(2), s.set_gpus_per_task(2); },
       "billing=2,cpu=2,gres/gpu=4,node=1"},
      {"--gres counts per node",
       [](auto& s) {
         s.set_min_nodes(2);
         auto* g = s.add_gres();
         g->set_name("nic");
         g->set_count(1);
       },
       "billing=2,cpu=2,gres/nic=2,node=2"},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    v1::JobSpec spec;
    row.set(spec);
    CHECK(core::tresText(core::requestedTres(spec)) == row.text);
  }
}

TEST_CASE("accounting codec: a record and an event read back the same; junk is refused", "[accounting][view]") {
  auto records = core::accountingRecordsOf(runningBatchJob(), oneNodeCluster(), scopeOf({"gres/gpu"}));
  records[0].cancelledByUid = 9;
  for (const auto& record : records) {
    auto back = core::decodeAccountingEntry(core::encodeAccountingEntry(record));
    REQUIRE(back.ok());
    CHECK(std::get<accounting::JobRecord>(*back) == record);
  }
  accounting::NodeEvent event;
  event.cluster = "c";
  event.node = "x7";
  event.startTime = 10;
  event.state = "DEGRADED";
  event.tres = "gres/gpu=1";
  event.tresReference = "gpu(IDX:0)(why)";
  auto back = core::decodeAccountingEntry(core::encodeAccountingEntry(event));
  REQUIRE(back.ok());
  CHECK(std::get<accounting::NodeEvent>(*back) == event);
  for (const char* junk : {"", "[1,2]", "{\"kind\":\"elephant\"}", "{\"kind\":\"job\",\"job_id\":\"x\"}"}) {
    INFO(junk);
    CHECK_FALSE(core::decodeAccountingEntry(junk).ok());
  }
}

TEST_CASE("accounting codec: every field survives, whatever bytes a user put in the text ones", "[accounting][view]") {
  accounting::JobRecord record;
  record.cluster = "c";
  record.jobId = 18446744073709551615ull;
  record.stepId = "batch";
  record.name = std::string("tab\there \"quoted\" back\\slash\nnew\0nul", 38);
  record.user = "\xC3\xA9mile";
  record.uid = 4294967295u;
  record.gid = 77;
  record.group = "g";
  record.account = "acct";
  record.partition = "p";
  record.submitTime = -5;
  record.eligibleTime = 3;
  record.startTime = 4;
  record.endTime = 9'000'000'000;
  record.timeLimitMinutes = 0;
  record.state = "FAILED";
  record.exitCode = {.code = 255, .signal = 9};
  record.derivedExitCode = {.code = -1, .signal = 0};
  record.nodeCount = 3;
  record.nodeList = "a[1-3]";
  record.allocCpus = 12;
  record.reqTres = "cpu=12";
  record.allocTres = "cpu=12,gres/gpu=3";
  record.usageIn = {"a", "b", "c", "d", "e", "f", "g", "h"};
  record.reason = "\x01";
  record.workDir = "/w";
  record.comment = "\xE2\x82\xAC ok";
  auto back = core::decodeAccountingEntry(core::encodeAccountingEntry(record));
  REQUIRE(back.ok());
  CHECK(std::get<accounting::JobRecord>(*back) == record);

  // Bytes that are not UTF-8 are kept as U+FFFD, never a row that cannot be read back.
  record.comment = "bad\xFF";
  back = core::decodeAccountingEntry(core::encodeAccountingEntry(record));
  REQUIRE(back.ok());
  CHECK(std::get<accounting::JobRecord>(*back).comment == "bad\xEF\xBF\xBD");
}

// ---------------------------------------------------------------- node events

namespace {

core::NodeRecord gpuNode() {
  core::NodeRecord node;
  node.conf.name = "x7";
  node.conf.cpus = 8;
  node.conf.realMemoryMb = 64000;
  node.conf.gres.push_back({.name = "gpu", .type = "a40", .count = 2});
  node.registered = true;
  return node;
}

}  // namespace

TEST_CASE("node events: the events a node's state asks for, one row per rule", "[accounting][events]") {
  struct Row {
    const char* rule;
    std::vector<std::string> tracked;
    std::function<void(core::NodeRecord&)> change;
    std::vector<std::string> states;  // of the wanted events, in order; {"?"}: unknown
    const char* firstTres = "";
    const char* firstReference = "";
  };
  const Row rows[] = {
      {"a node in service has none", {}, [](auto&) {}, {}},
      {"a node not yet registered is not known", {}, [](auto& n) { n.registered = false; }, {"?"}},
      {"a node set down is DOWN with its counted TRES", {"gres/gpu"},
       [](auto& n) { n.admin = core::NodeAdminState::Down, n.reason = "rack"; }, {"DOWN"},
       "cpu=8,gres/gpu=2,mem=64000M"},
      {"an unresponsive node is DOWN", {}, [](auto& n) { n.notResponding = true; }, {"DOWN"}, "cpu=8,mem=64000M"},
      {"a drained node is DRAIN", {}, [](auto& n) { n.admin = core::NodeAdminState::Drain; }, {"DRAIN"}},
      {"a failed registration drains", {}, [](auto& n) { n.registrationErrors = {"gres/gpu count too low"}; },
       {"DRAIN"}},
      {"a failing node is FAIL with its counted TRES", {"gres/gpu:a40"},
       [](auto& n) { n.admin = core::NodeAdminState::Fail, n.reason = "psu"; }, {"FAIL"},
       "cpu=8,gres/gpu:a40=2,mem=64000M"},
      {"a failing node that stops responding is DOWN", {},
       [](auto& n) { n.admin = core::NodeAdminState::Fail, n.notResponding = true; }, {"DOWN"}},
      {"a failing node with a drained core has both", {},
       [](auto& n) {
         n.admin = core::NodeAdminState::Fail;
         n.drainedTres.cpus.push_back({.cpu = 5, .reason = "mce"});
       },
       {"FAIL", "DEGRADED"}},
      {"a drained tracked GPU is DEGRADED", {"gres/gpu"},
       [](auto& n) { n.drainedTres.devices.push_back({.gres = "gpu", .type = "a40", .index = 1, .reason = "ecc"}); },
       {"DEGRADED"}, "gres/gpu=1", "gpu(IDX:1)(ecc)"},
      {"a typed tracked GPU counts under its type", {"gres/gpu:a40"},
       [](auto& n) { n.drainedTres.devices.push_back({.gres = "gpu", .type = "a40", .index = 0, .reason = "x"}); },
       {"DEGRADED"}, "gres/gpu:a40=1"},
      {"an untracked GPU's drain opens nothing", {"gres/shard"},
       [](auto& n) { n.drainedTres.devices.push_back({.gres = "gpu", .type = "a40", .index = 1, .reason = "ecc"}); },
       {}},
      {"drained memory always counts", {},
       [](auto& n) { n.drainedTres.counts.push_back({.tres = "mem", .count = 2048, .reason = "dimm"}); },
       {"DEGRADED"}, "mem=2G"},
      {"a drained node with a drained core has both", {},
       [](auto& n) {
         n.admin = core::NodeAdminState::Drain;
         n.drainedTres.cpus.push_back({.cpu = 3, .reason = "mce"});
       },
       {"DRAIN", "DEGRADED"}},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    auto node = gpuNode();
    row.change(node);
    auto tracked = accounting::trackedTresFrom(row.tracked);
    REQUIRE(tracked.ok());
    auto wanted = core::wantedNodeEvents(node, *tracked, "c1");
    if (row.states == std::vector<std::string>{"?"}) {
      CHECK_FALSE(wanted.has_value());
      continue;
    }
    REQUIRE(wanted.has_value());
    std::vector<std::string> states;
    for (const auto& event : *wanted) states.push_back(event.state);
    CHECK(states == row.states);
    if (!wanted->empty() && std::string(row.firstTres).size() > 0) CHECK(wanted->front().tres == row.firstTres);
    if (!wanted->empty() && std::string(row.firstReference).size() > 0) {
      CHECK(wanted->front().tresReference == row.firstReference);
    }
  }
}

TEST_CASE("node events: the book opens, keeps, and closes and reopens on a change", "[accounting][events]") {
  core::NodeEventBook book;
  accounting::NodeEvent drained;
  drained.node = "x7";
  drained.state = "DRAIN";
  drained.reason = "fan";
  auto writes = book.update("x7", {drained}, 100);
  REQUIRE(writes.size() == 1);
  CHECK(writes[0].startTime == 100);
  CHECK(writes[0].endTime == 0);
  CHECK(book.update("x7", {drained}, 150).empty());  // nothing changed

  accounting::NodeEvent louder = drained;
  louder.reason = "fan and psu";
  writes = book.update("x7", {louder}, 200);
  REQUIRE(writes.size() == 2);
  CHECK(writes[0].endTime == 200);
  CHECK(writes[0].startTime == 100);
  CHECK(writes[1].startTime == 200);

  writes = book.update("x7", {}, 260);
  REQUIRE(writes.size() == 1);
  CHECK(writes[0].reason == "fan and psu");
  CHECK(writes[0].endTime == 260);
  CHECK(book.openOn("x7").empty());

  // Closed and opened again within one second: the new one starts a
  // second later, so the two keep apart in the store.
  REQUIRE(book.update("x7", {drained}, 270).size() == 1);
  REQUIRE(book.update("x7", {}, 270).size() == 1);
  writes = book.update("x7", {drained}, 270);
  REQUIRE(writes.size() == 1);
  CHECK(writes[0].startTime == 271);
  REQUIRE(book.update("x7", {}, 280).size() == 1);

  // An event adopted at start is closed like one opened here.
  core::NodeEventBook restarted;
  accounting::NodeEvent open = drained;
  open.startTime = 90;
  restarted.adopt({open});
  writes = restarted.update("x7", {}, 300);
  REQUIRE(writes.size() == 1);
  CHECK(writes[0].startTime == 90);
  CHECK(writes[0].endTime == 300);
}

TEST_CASE("accounting view: a node's configured TRES (CfgTRES)", "[accounting][view]") {
  struct Row {
    const char* rule;
    std::string nodeLine;
    const char* text;
  };
  const Row rows[] = {
      {"cpu, mem and one billing unit per cpu", "NodeName=c1 CPUs=12 RealMemory=96000", "cpu=12,mem=96000M,billing=12"},
      {"memory in its largest whole unit", "NodeName=c1 CPUs=2 RealMemory=8192", "cpu=2,mem=8G,billing=2"},
      {"typed devices count under the name and the type",
       "NodeName=c1 CPUs=6 RealMemory=1000 Gres=gpu:l40:3", "cpu=6,mem=1000M,billing=6,gres/gpu=3,gres/gpu:l40=3"},
      {"two types add up under the name",
       "NodeName=c1 CPUs=6 RealMemory=1000 Gres=gpu:l40:1,gpu:a10:2",
       "cpu=6,mem=1000M,billing=6,gres/gpu=3,gres/gpu:a10=2,gres/gpu:l40=1"},
      {"shares and counts as configured", "NodeName=c1 CPUs=6 RealMemory=1000 Gres=gpu:2,shard:20,nic:no_consume:1",
       "cpu=6,mem=1000M,billing=6,gres/gpu=2,gres/nic=1,gres/shard=20"},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    auto loaded = config::parseGantryConf(std::string("GresTypes=gpu,shard,nic\n") + row.nodeLine +
                                              "\nPartitionName=p Nodes=c1\n",
                                          "unit.conf");
    REQUIRE(loaded.ok());
    CHECK(core::tresTextInIdOrder(core::configuredTresCounts(loaded->conf.nodes.at(0))) == row.text);
  }
}
