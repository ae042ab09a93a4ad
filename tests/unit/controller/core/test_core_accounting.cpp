// Accounting through the controller core: job and step records journaled
// with the changes that produce them and delivered to a real accounting
// store (SQLite, in the test's folder); node events opened and closed as
// nodes change. The record rules themselves are table-tested in
// test_accounting_view.cpp and test_node_accounting.cpp.
#include "tests/unit/controller/core/core_harness.h"

#include <filesystem>
#include <set>

#include "controller/accounting/accounting_open.h"
#include "controller/core/accounting_codec.h"

using namespace gantry;
using testing::CoreHarness;
using testing::tempDb;

namespace {

const auth::Identity kAda{.uid = 3107, .gid = 3107, .user = "ada"};
const auth::Identity kRoot{.uid = 0, .gid = 0, .user = "root"};
const auth::Identity kOperator{.uid = 4422, .gid = 4422, .user = "op"};
// Root under another name, as a SlurmUser account is.
const auth::Identity kOperatorAdmin{.uid = 0, .gid = 0, .user = "slurmadm"};

std::unique_ptr<accounting::AccountingStore> openStore(const std::string& path) {
  auto opened = accounting::openAccountingStore({.backend = accounting::AccountingConnection::Backend::Sqlite,
                                                 .path = path});
  REQUIRE(opened.ok());
  return std::move(*opened);
}

std::string accountingPath() { return tempDb() + ".acct"; }

config::GantryConf gpuConf(const std::string& tres = "gres/gpu") {
  return testing::parseConf("ClusterName=acctunit\nSlurmdTimeout=10\nGresTypes=gpu\nAccountingStorageType=sqlite\n"
                            "AccountingStorageTRES=" + tres + "\n"
                            "NodeName=g[1-2] CPUs=6 CoresPerSocket=6 RealMemory=24000 Gres=gpu:3\n"
                            "PartitionName=main Nodes=g[1-2] Default=YES MaxTime=90\n");
}

v1::RegisterRequest gpuNode(const std::string& name) {
  v1::RegisterRequest request;
  request.set_node_name(name);
  for (int card = 0; card < 3; ++card) {
    v1::GresDevice* gpu = request.mutable_hardware()->add_gres();
    gpu->set_name("gpu");
    gpu->add_files("/dev/nvidia" + std::to_string(card));
    gpu->set_count(1);
    gpu->set_uuid("GPU-" + name + "-" + std::to_string(card));
  }
  return request;
}

void registerGpuNodes(CoreHarness& h) {
  for (const char* name : {"g1", "g2"}) {
    auto request = gpuNode(name);
    REQUIRE(h.await<v1::RegisterResponse>([&](auto reply) { h.core->registerNode(request, reply); }).ok());
  }
  h.settle();
}

v1::JobSpec batchJob(const std::string& name = "train") {
  v1::JobSpec spec;
  spec.set_name(name);
  spec.set_script("#!/bin/sh\nsleep 100\n");
  spec.set_ntasks(2);
  spec.set_gpus(2);
  spec.set_work_dir("/home/ada/run7");
  return spec;
}

// Both stores have written everything queued.
void settleBoth(CoreHarness& h, accounting::AccountingStore& store) {
  for (int i = 0; i < 4; ++i) {
    h.settle();
    h.store.flush();
    h.core->flushAccounting();
    store.flush();
  }
  h.settle();
}

std::vector<accounting::JobRecord> recordsOf(accounting::AccountingStore& store, uint64_t job) {
  accounting::JobQuery query;
  query.ids.push_back({.jobId = job, .stepId = std::nullopt});
  auto records = store.jobs(query);
  REQUIRE(records.ok());
  return *records;
}

const accounting::JobRecord* step(const std::vector<accounting::JobRecord>& records, const std::string& id) {
  for (const auto& record : records) {
    if (record.stepId == id) return &record;
  }
  return nullptr;
}

std::vector<accounting::NodeEvent> eventsOf(accounting::AccountingStore& store, const std::string& node) {
  accounting::EventQuery query;
  query.nodes = {node};
  auto events = store.events(query);
  REQUIRE(events.ok());
  return *events;
}

void batchEnded(CoreHarness& h, uint64_t job, const std::string& node, int exitCode,
                const std::vector<std::pair<uint64_t, uint64_t>>& cpuAndGpuMem = {}) {
  v1::StepCompleteRequest request;
  request.set_node_name(node);
  request.set_job_id(job);
  request.set_step_id("batch");
  request.set_exit_code(exitCode);
  request.set_end_time(1'000'500);
  uint32_t rank = 0;
  for (const auto& [cpuSeconds, gpuMib] : cpuAndGpuMem) {
    v1::TaskUsage* task = request.add_task_usage();
    task->set_task(rank++);
    task->set_cpu_usec(cpuSeconds * 1000000);
    task->set_mem_peak_bytes(512 * 1024 * 1024);
    task->set_gpu_mem_bytes(gpuMib * 1024 * 1024);
    task->set_gpu_util_percent(70);
  }
  REQUIRE(h.await<v1::StepCompleteResponse>([&](auto reply) { h.core->stepComplete(request, reply); }).ok());
}

}  // namespace

TEST_CASE("a batch job is recorded pending, running and completed, with its batch step and its usage",
          "[core][accounting]") {
  std::string acct = accountingPath();
  auto store = openStore(acct);
  CoreHarness h(gpuConf(), tempDb(), nullptr, {}, 300, store.get());
  registerGpuNodes(h);
  auto id = h.submit(batchJob(), kAda);
  REQUIRE(id.ok());
  settleBoth(h, *store);
  auto records = recordsOf(*store, *id);
  REQUIRE_FALSE(records.empty());
  CHECK(records.front().stepId.empty());
  CHECK(records.front().state == "RUNNING");  // placed at once on the idle nodes
  CHECK(records.front().cluster == "acctunit");
  CHECK(records.front().user == "ada");
  CHECK(records.front().uid == 3107);
  CHECK(records.front().timeLimitMinutes == std::optional<uint32_t>(90));
  CHECK(records.front().allocTres.find("gres/gpu=2") != std::string::npos);
  CHECK(records.front().reqTres.find("gres/gpu=2") != std::string::npos);
  REQUIRE(step(records, "batch") != nullptr);
  CHECK(step(records, "batch")->state == "RUNNING");

  batchEnded(h, *id, h.job(*id).batch_host(), 0, {{41, 3000}, {19, 1000}});
  settleBoth(h, *store);
  records = recordsOf(*store, *id);
  REQUIRE(records.size() == 2);
  CHECK(records[0].state == "COMPLETED");
  CHECK(records[0].endTime != 0);
  CHECK(records[0].workDir == "/home/ada/run7");
  const auto* batch = step(records, "batch");
  REQUIRE(batch != nullptr);
  CHECK(batch->state == "COMPLETED");
  CHECK(batch->usageIn.tot.find("cpu=00:01:00") != std::string::npos);
  CHECK(batch->usageIn.tot.find("gres/gpumem=4000M") != std::string::npos);
  CHECK(batch->usageIn.ave.find("gres/gpumem=2000M") != std::string::npos);
  CHECK(batch->usageIn.max.find("gres/gpuutil=70") != std::string::npos);
  CHECK(batch->usageIn.maxTask.find("cpu=0") != std::string::npos);
  // Everything delivered leaves the journal (cut back in batches).
  h.advance(std::chrono::seconds(3));
  h.store.flush();
  auto snapshot = h.store.load(0, 0);
  REQUIRE(snapshot.ok());
  CHECK(snapshot->accountingJournal.empty());
}

TEST_CASE("a record the accounting store could not take survives a controller restart and is stored once",
          "[core][accounting]") {
  std::string db = tempDb();
  std::string acct = accountingPath();
  uint64_t id = 0;
  {
    // The accounting store is gone (closed): every delivery fails and the
    // records stay in the journal, as they would in a controller killed
    // between a job's end and its accounting write.
    auto unreachable = openStore(acct);
    unreachable->close();
    CoreHarness h(gpuConf(), db, nullptr, {}, 300, unreachable.get());
    registerGpuNodes(h);
    auto submitted = h.submit(batchJob("lost-write"), kAda);
    REQUIRE(submitted.ok());
    id = *submitted;
    h.settle();
    batchEnded(h, id, h.job(id).batch_host(), 3);
    h.settle();
    h.store.flush();
    auto snapshot = h.store.load(0, 0);
    REQUIRE(snapshot.ok());
    CHECK_FALSE(snapshot->accountingJournal.empty());
  }
  auto store = openStore(acct);
  for (int restart = 0; restart < 2; ++restart) {
    CoreHarness h(gpuConf(), db, nullptr, {}, 300, store.get());
    settleBoth(h, *store);
    auto records = recordsOf(*store, id);
    REQUIRE(records.size() == 2);  // the job and its batch step, once each
    CHECK(records[0].state == "FAILED");
    CHECK(records[0].exitCode == accounting::ExitCode{3, 0});
    CHECK(step(records, "batch")->state == "FAILED");
    h.advance(std::chrono::seconds(3));
    h.store.flush();
    auto snapshot = h.store.load(0, 0);
    REQUIRE(snapshot.ok());
    CHECK(snapshot->accountingJournal.empty());
  }
}

TEST_CASE("open records take no journal row and still reach the accounting store after a restart",
          "[core][accounting]") {
  std::string db = tempDb();
  std::string acct = accountingPath();
  uint64_t running = 0, held = 0;
  {
    // Nothing reaches the accounting store before the stop.
    auto unreachable = openStore(acct);
    unreachable->close();
    CoreHarness h(gpuConf(), db, nullptr, {}, 300, unreachable.get());
    registerGpuNodes(h);
    auto started = h.submit(batchJob("open-run"), kAda);
    v1::JobSpec waiting = batchJob("open-wait");
    waiting.set_hold(true);
    auto queued = h.submit(waiting, kAda);
    REQUIRE(started.ok());
    REQUIRE(queued.ok());
    running = *started;
    held = *queued;
    h.settle();
    h.store.flush();
    // Their stored forms hold all the records say: nothing is journaled.
    auto snapshot = h.store.load(0, 0);
    REQUIRE(snapshot.ok());
    CHECK(snapshot->accountingJournal.empty());
  }
  auto store = openStore(acct);
  CoreHarness h(gpuConf(), db, nullptr, {}, 300, store.get());
  settleBoth(h, *store);
  auto records = recordsOf(*store, running);
  REQUIRE(records.size() == 2);  // the job and its batch step, once each
  CHECK(records[0].state == "RUNNING");
  REQUIRE(step(records, "batch") != nullptr);
  CHECK(step(records, "batch")->state == "RUNNING");
  records = recordsOf(*store, held);
  REQUIRE(records.size() == 1);
  CHECK(records[0].state == "PENDING");
}

TEST_CASE("an ended record is journaled until the accounting store has it", "[core][accounting]") {
  std::string db = tempDb();
  auto unreachable = openStore(accountingPath());
  unreachable->close();
  CoreHarness h(gpuConf(), db, nullptr, {}, 300, unreachable.get());
  registerGpuNodes(h);
  auto id = h.submit(batchJob("ends-unstored"), kAda);
  REQUIRE(id.ok());
  h.settle();
  batchEnded(h, *id, h.job(*id).batch_host(), 0);
  h.settle();
  h.store.flush();
  auto snapshot = h.store.load(0, 0);
  REQUIRE(snapshot.ok());
  // The job's record and its batch step's, only ended ones.
  std::set<std::string> journaled;
  for (const auto& [sequence, text] : snapshot->accountingJournal) {
    auto entry = core::decodeAccountingEntry(text);
    REQUIRE(entry.ok());
    const auto& record = std::get<accounting::JobRecord>(*entry);
    CHECK(record.endTime != 0);
    journaled.insert(record.stepId.empty() ? "job" : record.stepId);
  }
  CHECK(journaled == std::set<std::string>{"job", "batch"});
}

TEST_CASE("a cancelled job records who cancelled it", "[core][accounting]") {
  auto store = openStore(accountingPath());
  CoreHarness h(gpuConf(), tempDb(), nullptr, {}, 300, store.get());
  auto spec = batchJob();
  spec.set_hold(true);
  auto id = h.submit(spec, kAda);
  REQUIRE(id.ok());
  v1::CancelJobRequest cancel;
  cancel.add_job_ids(*id);
  REQUIRE(h.await<v1::CancelJobResponse>([&](auto reply) { h.core->cancelJob(cancel, kRoot, reply); }).ok());
  settleBoth(h, *store);
  auto records = recordsOf(*store, *id);
  REQUIRE(records.size() == 1);  // never started: no steps
  CHECK(records[0].state == "CANCELLED");
  CHECK(records[0].cancelledByUid == std::optional<uint32_t>(0));
  CHECK(records[0].eligibleTime == 0);  // held all its life
}

TEST_CASE("array tasks are recorded as ARRAY_TASK; the array's own record lists the tasks not started",
          "[core][accounting]") {
  auto store = openStore(accountingPath());
  CoreHarness h(gpuConf(), tempDb(), nullptr, {}, 300, store.get());
  registerGpuNodes(h);
  v1::JobSpec spec = batchJob("sweep");
  spec.set_ntasks(1);
  spec.set_gpus(1);
  spec.set_array("0-7");  // six GPUs: tasks 6 and 7 wait
  auto array = h.submit(spec, kAda);
  REQUIRE(array.ok());
  settleBoth(h, *store);
  accounting::JobQuery oneTask;
  oneTask.ids.push_back({.jobId = *array, .arrayTask = 3});
  auto task = store->jobs(oneTask);
  REQUIRE(task.ok());
  REQUIRE(task->size() == 2);  // the task and its batch step
  CHECK((*task)[0].jobId != *array);
  CHECK((*task)[0].arrayJobId == *array);
  CHECK((*task)[0].arrayTaskId == std::optional<uint32_t>(3));
  CHECK((*task)[1].stepId == "batch");
  CHECK((*task)[1].arrayTaskId == std::optional<uint32_t>(3));
  accounting::JobQuery whole;
  whole.ids.push_back({.jobId = *array});
  whole.allocationsOnly = true;
  auto all = store->jobs(whole);
  REQUIRE(all.ok());
  CHECK(all->size() == 7);  // six tasks and the array's record
  const accounting::JobRecord* waiting = nullptr;
  for (const auto& record : *all) {
    if (record.jobId == *array) waiting = &record;
  }
  REQUIRE(waiting != nullptr);
  CHECK_FALSE(waiting->arrayTaskId.has_value());
  CHECK(waiting->arrayTasks == "6-7");
  CHECK(waiting->state == "PENDING");
}

TEST_CASE("a requeued job keeps a record per run, the first closed as REQUEUED", "[core][accounting]") {
  auto store = openStore(accountingPath());
  CoreHarness h(gpuConf(), tempDb(), nullptr, {}, 300, store.get());
  registerGpuNodes(h);
  auto id = h.submit(batchJob(), kAda);
  REQUIRE(id.ok());
  h.settle();
  std::string host = h.job(*id).batch_host();
  h.clock.advance(std::chrono::seconds(40));
  // The batch host restarts without the job: it is lost and requeued.
  auto again = gpuNode(host);
  REQUIRE(h.await<v1::RegisterResponse>([&](auto reply) { h.core->registerNode(again, reply); }).ok());
  settleBoth(h, *store);
  auto records = recordsOf(*store, *id);
  std::vector<const accounting::JobRecord*> runs;
  for (const auto& record : records) {
    if (record.stepId.empty()) runs.push_back(&record);
  }
  REQUIRE(runs.size() == 2);
  CHECK(runs[0]->state == "REQUEUED");
  CHECK(runs[0]->endTime != 0);
  CHECK(runs[1]->submitTime > runs[0]->submitTime);
  CHECK(runs[1]->state != "REQUEUED");
}

TEST_CASE("draining a tracked GPU opens one DEGRADED event naming it; resuming it closes the event",
          "[core][accounting][events]") {
  auto store = openStore(accountingPath());
  CoreHarness h(gpuConf(), tempDb(), nullptr, {}, 300, store.get());
  registerGpuNodes(h);
  auto update = [&](std::vector<std::string> words) {
    v1::UpdateTresRequest request;
    for (auto& word : words) request.add_words(std::move(word));
    REQUIRE(h.await<v1::UpdateTresResponse>([&](auto reply) { h.core->updateTres(request, kRoot, reply); }).ok());
  };
  update({"TresName=gres/gpu", "NodeName=g2", "Index=1", "Action=Drain", "Reason=xid_48"});
  settleBoth(h, *store);
  auto events = eventsOf(*store, "g2");
  REQUIRE(events.size() == 1);
  CHECK(events[0].state == "DEGRADED");
  CHECK(events[0].endTime == 0);
  CHECK(events[0].tres == "gres/gpu=1");
  CHECK(events[0].tresReference == "gpu(IDX:1)(xid_48)");
  CHECK(events[0].reason == "xid_48");
  CHECK(eventsOf(*store, "g1").empty());

  h.clock.advance(std::chrono::seconds(8));
  update({"TresName=gres/gpu", "NodeName=g2", "Index=1", "Action=Resume"});
  settleBoth(h, *store);
  events = eventsOf(*store, "g2");
  REQUIRE(events.size() == 1);
  CHECK(events[0].endTime == events[0].startTime + 8);
}

TEST_CASE("a drain of only an untracked GPU records no event; a drained core always does",
          "[core][accounting][events]") {
  auto store = openStore(accountingPath());
  CoreHarness h(gpuConf("gres/shard"), tempDb(), nullptr, {}, 300, store.get());
  registerGpuNodes(h);
  v1::UpdateTresRequest gpu;
  for (const char* word : {"TresName=gres/gpu", "NodeName=g1", "Index=0", "Action=Drain", "Reason=fan"}) gpu.add_words(word);
  REQUIRE(h.await<v1::UpdateTresResponse>([&](auto reply) { h.core->updateTres(gpu, kRoot, reply); }).ok());
  settleBoth(h, *store);
  CHECK(eventsOf(*store, "g1").empty());
  v1::UpdateTresRequest cpu;
  for (const char* word : {"TresName=cpu", "NodeName=g1", "Index=4", "Action=Drain", "Reason=mce"}) cpu.add_words(word);
  REQUIRE(h.await<v1::UpdateTresResponse>([&](auto reply) { h.core->updateTres(cpu, kRoot, reply); }).ok());
  settleBoth(h, *store);
  auto events = eventsOf(*store, "g1");
  REQUIRE(events.size() == 1);
  CHECK(events[0].tres == "cpu=1");
  CHECK(events[0].tresReference == "cpu(IDX:4)(mce)");
}

TEST_CASE("a node set to drain and one that stops answering get DRAIN and DOWN events that close on return",
          "[core][accounting][events]") {
  auto store = openStore(accountingPath());
  CoreHarness h(gpuConf(), tempDb(), nullptr, {}, 300, store.get());
  registerGpuNodes(h);
  v1::UpdateNodeRequest drainIt;
  drainIt.set_node_names("g1");
  drainIt.set_state("DRAIN");
  drainIt.set_reason("psu swap");
  REQUIRE(h.await<v1::UpdateNodeResponse>([&](auto reply) { h.core->updateNode(drainIt, kRoot, reply); }).ok());
  settleBoth(h, *store);
  auto events = eventsOf(*store, "g1");
  REQUIRE(events.size() == 1);
  CHECK(events[0].state == "DRAIN");
  CHECK(events[0].reason == "psu swap");
  CHECK(events[0].tres == "cpu=6,gres/gpu=3,mem=24000M");

  // g2 stops answering: past SlurmdTimeout it is DOWN. g1 keeps beating.
  for (int i = 0; i < 12; ++i) {
    h.advance(std::chrono::seconds(1));
    h.heartbeat("g1");
  }
  settleBoth(h, *store);
  auto down = eventsOf(*store, "g2");
  REQUIRE(down.size() == 1);
  CHECK(down[0].state == "DOWN");
  CHECK(down[0].reason == "Not responding");
  CHECK(down[0].endTime == 0);
  auto back = gpuNode("g2");
  REQUIRE(h.await<v1::RegisterResponse>([&](auto reply) { h.core->registerNode(back, reply); }).ok());

  v1::UpdateNodeRequest resume;
  resume.set_node_names("g1");
  resume.set_state("RESUME");
  REQUIRE(h.await<v1::UpdateNodeResponse>([&](auto reply) { h.core->updateNode(resume, kRoot, reply); }).ok());
  settleBoth(h, *store);
  CHECK(eventsOf(*store, "g1").at(0).endTime != 0);
  CHECK(eventsOf(*store, "g2").at(0).endTime != 0);
}

TEST_CASE("a node set to FAIL gets a FAIL event with the operator's reason that closes on RESUME",
          "[core][accounting][events]") {
  auto store = openStore(accountingPath());
  CoreHarness h(gpuConf("gres/gpu"), tempDb(), nullptr, {}, 300, store.get());
  registerGpuNodes(h);
  v1::UpdateNodeRequest failIt;
  failIt.set_node_names("g2");
  failIt.set_state("FAIL");
  failIt.set_reason("nvlink errors");
  REQUIRE(h.await<v1::UpdateNodeResponse>([&](auto reply) { h.core->updateNode(failIt, kOperatorAdmin, reply); }).ok());
  settleBoth(h, *store);
  auto events = eventsOf(*store, "g2");
  REQUIRE(events.size() == 1);
  CHECK(events[0].state == "FAIL");
  CHECK(events[0].reason == "nvlink errors");
  CHECK(events[0].user == "slurmadm");
  CHECK(events[0].tres == "cpu=6,gres/gpu=3,mem=24000M");
  CHECK(events[0].endTime == 0);
  CHECK(eventsOf(*store, "g1").empty());

  h.advance(std::chrono::seconds(5));
  v1::UpdateNodeRequest resume;
  resume.set_node_names("g2");
  resume.set_state("RESUME");
  REQUIRE(h.await<v1::UpdateNodeResponse>([&](auto reply) { h.core->updateNode(resume, kRoot, reply); }).ok());
  settleBoth(h, *store);
  events = eventsOf(*store, "g2");
  REQUIRE(events.size() == 1);
  CHECK(events[0].endTime >= events[0].startTime + 5);
}

TEST_CASE("without accounting nothing is journaled", "[core][accounting]") {
  CoreHarness h(gpuConf());
  registerGpuNodes(h);
  REQUIRE(h.submit(batchJob(), kAda).ok());
  h.settle();
  h.store.flush();
  auto snapshot = h.store.load(0, 0);
  REQUIRE(snapshot.ok());
  CHECK(snapshot->accountingJournal.empty());
}

TEST_CASE("a plain user's cancel is recorded with their uid", "[core][accounting]") {
  auto store = openStore(accountingPath());
  CoreHarness h(gpuConf(), tempDb(), nullptr, {}, 300, store.get());
  auto spec = batchJob();
  spec.set_hold(true);
  auto id = h.submit(spec, kOperator);
  REQUIRE(id.ok());
  v1::CancelJobRequest cancel;
  cancel.add_job_ids(*id);
  REQUIRE(h.await<v1::CancelJobResponse>([&](auto reply) { h.core->cancelJob(cancel, kOperator, reply); }).ok());
  settleBoth(h, *store);
  CHECK(recordsOf(*store, *id).at(0).cancelledByUid == std::optional<uint32_t>(4422));
}

TEST_CASE("usage a node reported before a controller restart is still in the step's record after it",
          "[core][accounting]") {
  std::string db = tempDb();
  auto store = openStore(accountingPath());
  uint64_t id = 0;
  std::vector<std::string> stepNodes;
  auto reportStep = [&](CoreHarness& h, const std::string& node, uint64_t cpuSeconds) {
    v1::StepCompleteRequest request;
    request.set_node_name(node);
    request.set_job_id(id);
    request.set_step_id("0");
    request.set_end_time(1'000'400);
    v1::TaskUsage* task = request.add_task_usage();
    task->set_task(node == stepNodes.front() ? 0 : 1);
    task->set_cpu_usec(cpuSeconds * 1000000);
    task->set_mem_peak_bytes(256ull * 1024 * 1024);
    task->set_gpu_mem_bytes(700ull * 1024 * 1024);
    REQUIRE(h.await<v1::StepCompleteResponse>([&](auto reply) { h.core->stepComplete(request, reply); }).ok());
  };
  {
    CoreHarness h(gpuConf(), db, nullptr, {}, 300, store.get());
    registerGpuNodes(h);
    v1::JobSpec spec = batchJob("two-nodes");
    spec.set_min_nodes(2);
    spec.set_gpus(0);
    auto submitted = h.submit(spec, kAda);
    REQUIRE(submitted.ok());
    id = *submitted;
    h.settle();
    v1::CreateStepRequest request;
    request.set_job_id(id);
    request.mutable_spec()->set_ntasks(2);
    request.mutable_spec()->set_min_nodes(2);
    request.add_argv("train.py");
    request.mutable_io()->set_addr("login1");
    request.mutable_io()->set_port(4567);
    request.mutable_io()->set_token("t");
    auto created = h.await<v1::CreateStepResponse>([&](auto reply) { h.core->createStep(request, kAda, reply); });
    REQUIRE(created.ok());
    REQUIRE(created->num_nodes() == 2);
    stepNodes = {"g1", "g2"};
    reportStep(h, "g1", 30);
    settleBoth(h, *store);
  }
  // The controller restarts; the second node reports after it.
  CoreHarness h(gpuConf(), db, nullptr, {}, 300, store.get());
  h.settle();
  reportStep(h, "g2", 50);
  settleBoth(h, *store);
  auto records = recordsOf(*store, id);
  const auto* numbered = step(records, "0");
  REQUIRE(numbered != nullptr);
  CHECK(numbered->state == "COMPLETED");
  // Both nodes' tasks: 30 s + 50 s of CPU, 700 MiB of GPU memory each.
  CHECK(numbered->usageIn.tot.find("cpu=00:01:20") != std::string::npos);
  CHECK(numbered->usageIn.tot.find("gres/gpumem=1400M") != std::string::npos);
  CHECK(numbered->usageIn.min.find("cpu=00:00:30") != std::string::npos);
}
