// Per-device drains wired into the controller core: commands, registrations
// against the saved device order, MaxDrainedTres, State= updates, selection
// and restarts. The rules themselves are table-tested in
// tests/unit/controller/drain; here each is checked once through the core.
#include "tests/unit/controller/core/core_harness.h"

#include "controller/core/select_info.h"

#include <algorithm>

using namespace gantry;
using testing::CoreHarness;
using testing::tempDb;

namespace {

const auth::Identity kRoot{.uid = 0, .gid = 0, .user = "root"};
const auth::Identity kMallory{.uid = 1207, .gid = 1207, .user = "mallory"};

// One node, gq4, with five GPUs and eight single-thread cores, in one partition.
config::GantryConf fiveGpuConf(const std::string& extra = "", const std::string& nodeExtra = "") {
  return testing::parseConf("ClusterName=unit\nSlurmdTimeout=30\nGresTypes=gpu\n" + extra +
                            "NodeName=gq4 CPUs=8 CoresPerSocket=8 RealMemory=32000 Gres=gpu:5 " + nodeExtra +
                            "\nPartitionName=work Nodes=gq4 Default=YES MaxTime=600\n");
}

std::string uuidOf(int card) { return "GPU-c0de-" + std::to_string(card); }

// gq4 reporting one GPU per entry of `cards` (a card number gives its UUID
// and device file), in that order.
v1::RegisterRequest registration(const std::vector<int>& cards, bool withUuids = true,
                                 const std::vector<uint64_t>& running = {}) {
  v1::RegisterRequest request;
  request.set_node_name("gq4");
  for (uint64_t job : running) {
    v1::RunningStep* step = request.add_running();
    step->set_job_id(job);
    step->set_step_id("batch");
  }
  for (int card : cards) {
    v1::GresDevice* gpu = request.mutable_hardware()->add_gres();
    gpu->set_name("gpu");
    gpu->add_files("/dev/nvidia" + std::to_string(card));
    gpu->set_count(1);
    if (withUuids) gpu->set_uuid(uuidOf(card));
  }
  return request;
}

// `running`: the jobs whose batch step the agent still runs.
void registerCards(CoreHarness& h, const std::vector<int>& cards, bool withUuids = true,
                   const std::vector<uint64_t>& running = {}) {
  auto request = registration(cards, withUuids, running);
  REQUIRE(h.await<v1::RegisterResponse>([&](auto reply) { h.core->registerNode(request, reply); }).ok());
  h.settle();
}

Result<v1::UpdateTresResponse> updateTres(CoreHarness& h, std::vector<std::string> words,
                                          const auth::Identity& caller = kRoot) {
  v1::UpdateTresRequest request;
  for (auto& word : words) request.add_words(std::move(word));
  auto answer = h.await<v1::UpdateTresResponse>([&](auto reply) { h.core->updateTres(request, caller, reply); });
  h.settle();
  return answer;
}

Result<v1::UpdateNodeResponse> updateNode(CoreHarness& h, const std::string& state, const std::string& reason = "",
                                          const auth::Identity& caller = kRoot) {
  v1::UpdateNodeRequest request;
  request.set_node_names("gq4");
  request.set_state(state);
  request.set_reason(reason);
  auto answer = h.await<v1::UpdateNodeResponse>([&](auto reply) { h.core->updateNode(request, caller, reply); });
  h.settle();
  return answer;
}

std::string drainedListing(CoreHarness& h) {
  v1::ListDrainedTresRequest request;
  auto answer =
      h.await<v1::ListDrainedTresResponse>([&](auto reply) { h.core->listDrainedTres(request, kRoot, reply); });
  REQUIRE(answer.ok());
  return answer->listing();
}

v1::Node node(CoreHarness& h) {
  v1::ListNodesRequest request;
  request.add_names("gq4");
  auto answer = h.await<v1::ListNodesResponse>([&](auto reply) { h.core->listNodes(request, reply); });
  REQUIRE(answer.ok());
  REQUIRE(answer->nodes_size() == 1);
  return answer->nodes(0);
}

bool flagged(const v1::Node& n, v1::NodeStateFlag flag) { return (n.state_flags() & flag) != 0; }

v1::JobSpec gpuJob(int gpus, int cpus = 1) {
  v1::JobSpec spec;
  spec.set_script("#!/bin/sh\nsleep 600\n");
  spec.set_ntasks(1);
  spec.set_cpus_per_task(cpus);
  if (gpus > 0) {
    v1::GresRequest* gres = spec.add_gres();
    gres->set_name("gpu");
    gres->set_count(gpus);
  }
  return spec;
}

uint64_t submit(CoreHarness& h, v1::JobSpec spec) {
  auto id = h.submit(std::move(spec), kRoot);
  REQUIRE(id.ok());
  h.settle();
  return *id;
}

std::vector<int> devicesOf(CoreHarness& h, uint64_t job) {
  std::vector<int> devices;
  v1::Job record = h.job(job);
  for (const auto& alloc : record.allocation()) devices.assign(alloc.devices().begin(), alloc.devices().end());
  std::sort(devices.begin(), devices.end());
  return devices;
}

// The device files the batch step of `job` was launched with.
std::vector<std::string> launchedFiles(CoreHarness& h, uint64_t job) {
  std::vector<std::string> files;
  for (const auto& launch : h.agents.launchesOf("batch")) {
    if (launch.job_id() != job) continue;
    for (const auto& gpu : launch.gpus()) files.insert(files.end(), gpu.files().begin(), gpu.files().end());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("a drained GPU is given to no new job and the rest of the node keeps working") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  auto drained = updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=2", "Action=Drain", "Reason=xid_79"});
  REQUIRE(drained.ok());
  CHECK(flagged(node(h), v1::NODE_FLAG_DEGRADED));
  CHECK_FALSE(flagged(node(h), v1::NODE_FLAG_DRAIN));

  uint64_t four = submit(h, gpuJob(4));
  CHECK(h.job(four).state() == v1::RUNNING);
  CHECK(devicesOf(h, four) == std::vector<int>{0, 1, 3, 4});
  CHECK(launchedFiles(h, four) ==
        std::vector<std::string>{"/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia3", "/dev/nvidia4"});
}

TEST_CASE("a job that only drained GPUs could serve waits with a reason naming them, and starts on resume") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=3", "Action=Drain", "Reason=fan"}).ok());
  uint64_t all = submit(h, gpuJob(5));
  CHECK(h.job(all).state() == v1::PENDING);
  CHECK(h.job(all).reason() == "Resources (drained: gq4 gpu(IDX:3)(fan))");

  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=3", "Action=Resume"}).ok());
  CHECK(h.job(all).state() == v1::RUNNING);
  CHECK_FALSE(flagged(node(h), v1::NODE_FLAG_DEGRADED));
}

TEST_CASE("a job waiting for GPUs held by others, not drained ones, keeps the plain Resources reason") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=0", "Action=Drain", "Reason=fan"}).ok());
  uint64_t first = submit(h, gpuJob(3));
  REQUIRE(h.job(first).state() == v1::RUNNING);
  uint64_t second = submit(h, gpuJob(2));
  CHECK(h.job(second).state() == v1::PENDING);
  CHECK(h.job(second).reason() == "Resources");
}

TEST_CASE("a running job keeps a GPU drained under it; once it ends the GPU stays out of service") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  uint64_t all = submit(h, gpuJob(5));
  REQUIRE(h.job(all).state() == v1::RUNNING);
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=4", "Action=Drain", "Reason=ecc"}).ok());
  CHECK(h.job(all).state() == v1::RUNNING);
  CHECK(devicesOf(h, all).size() == 5);
  h.stepEnded(all, "batch", "gq4", 0);
  h.settle();
  uint64_t next = submit(h, gpuJob(5));
  CHECK(h.job(next).state() == v1::PENDING);
  uint64_t fits = submit(h, gpuJob(4));
  CHECK(h.job(fits).state() == v1::RUNNING);
  CHECK(devicesOf(h, fits) == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("a drained core is given to no new job; naming one thread drains its core") {
  CoreHarness h(testing::parseConf("ClusterName=unit\nSlurmdTimeout=30\n"
                                   "NodeName=gq4 CPUs=8 Sockets=1 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=32000\n"
                                   "PartitionName=work Nodes=gq4 Default=YES MaxTime=600\n"));
  h.registerNodes({"gq4"});
  REQUIRE(updateTres(h, {"TresName=cpu", "NodeName=gq4", "Index=5", "Action=Drain", "Reason=mce"}).ok());
  CHECK(drainedListing(h) == "NodeName=gq4 TresName=cpu Index=4-5 Reason=mce\n");
  uint64_t whole = submit(h, gpuJob(0, 8));
  CHECK(h.job(whole).state() == v1::PENDING);
  uint64_t six = submit(h, gpuJob(0, 6));
  CHECK(h.job(six).state() == v1::RUNNING);
}

TEST_CASE("drained memory is given to no new job") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  REQUIRE(updateTres(h, {"TresName=mem", "NodeName=gq4", "Count=12000", "Action=Drain", "Reason=dimm"}).ok());
  v1::JobSpec big = gpuJob(0);
  big.set_mem_per_node_mb(25000);
  uint64_t refused = submit(h, big);
  CHECK(h.job(refused).state() == v1::PENDING);
  v1::JobSpec small = gpuJob(0);
  small.set_mem_per_node_mb(20000);
  uint64_t fits = submit(h, small);
  CHECK(h.job(fits).state() == v1::RUNNING);
}

TEST_CASE("TRES drains are for root and SlurmUser; another user's request changes nothing") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  auto refused =
      updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=1", "Action=Drain", "Reason=mine"}, kMallory);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.failure().code == ErrorCode::Denied);
  CHECK(refused.error().find("Access/permission denied") != std::string::npos);
  CHECK(drainedListing(h).empty());

  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=1", "Action=Drain", "Reason=ecc"}).ok());
  auto resume = updateNode(h, "RESUME", "", kMallory);
  REQUIRE_FALSE(resume.ok());
  CHECK(resume.failure().code == ErrorCode::Denied);
  CHECK_FALSE(drainedListing(h).empty());
}

TEST_CASE("a malformed or impossible TRES request is refused with its reason and changes nothing") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  struct Row {
    const char* rule;
    std::vector<std::string> words;
    const char* says;
  };
  const Row rows[] = {
      {"Drain needs a reason", {"TresName=gres/gpu", "NodeName=gq4", "Index=1", "Action=Drain"}, "Reason="},
      {"an unknown node", {"TresName=gres/gpu", "NodeName=gq9", "Index=1", "Action=Resume"}, "gq9"},
      {"an index past the devices", {"TresName=gres/gpu", "NodeName=gq4", "Index=7", "Action=Drain", "Reason=x"}, "7"},
      {"a bad host list", {"TresName=gres/gpu", "NodeName=gq[4", "Index=1", "Action=Drain", "Reason=x"}, "gq[4"},
  };
  for (const Row& row : rows) {
    SECTION(row.rule) {
      auto answer = updateTres(h, row.words);
      REQUIRE_FALSE(answer.ok());
      CHECK(answer.error().find(row.says) != std::string::npos);
      CHECK(drainedListing(h).empty());
    }
  }
  SECTION("words and JSON together") {
    v1::UpdateTresRequest request;
    request.add_words("TresName=gres/gpu");
    request.set_json("{}");
    auto answer = h.await<v1::UpdateTresResponse>([&](auto reply) { h.core->updateTres(request, kRoot, reply); });
    REQUIRE_FALSE(answer.ok());
  }
}

TEST_CASE("the JSON form of a request drains like scontrol's words") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  v1::UpdateTresRequest request;
  request.set_json(R"({"name": "gres/gpu", "nodes": "gq4", "index": "0,4", "action": "drain", "reason": "psu"})");
  REQUIRE(h.await<v1::UpdateTresResponse>([&](auto reply) { h.core->updateTres(request, kRoot, reply); }).ok());
  h.settle();
  CHECK(drainedListing(h) ==
        "NodeName=gq4 TresName=gres/gpu Index=0 Uuid=" + uuidOf(0) + " Reason=psu\n"
        "NodeName=gq4 TresName=gres/gpu Index=4 Uuid=" + uuidOf(4) + " Reason=psu\n");
}

TEST_CASE("an absent GPU leaves an empty slot at its index and later devices keep theirs") {
  CoreHarness h(fiveGpuConf("SlurmctldParameters=drain_absent_gres\n"));
  registerCards(h, {0, 1, 2, 3, 4});
  registerCards(h, {0, 2, 3, 4});  // card 1 is gone
  v1::Node n = node(h);
  CHECK(flagged(n, v1::NODE_FLAG_DEGRADED));
  CHECK_FALSE(flagged(n, v1::NODE_FLAG_DRAIN));
  CHECK(drainedListing(h) == "NodeName=gq4 TresName=gres/gpu Index=1 Reason=gres/gpu:not_found\n");
  uint64_t four = submit(h, gpuJob(4));
  REQUIRE(h.job(four).state() == v1::RUNNING);
  CHECK(devicesOf(h, four) == std::vector<int>{0, 2, 3, 4});
  CHECK(launchedFiles(h, four) ==
        std::vector<std::string>{"/dev/nvidia0", "/dev/nvidia2", "/dev/nvidia3", "/dev/nvidia4"});
}

TEST_CASE("without drain_absent_gres an absent GPU drains the node as well as its index") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  registerCards(h, {0, 1, 2, 4});
  v1::Node n = node(h);
  CHECK(flagged(n, v1::NODE_FLAG_DRAIN));
  CHECK(n.reason() == "gres/gpu count reported lower than configured (4 < 5)");
  CHECK(drainedListing(h) == "NodeName=gq4 TresName=gres/gpu Index=3 Reason=gres/gpu:not_found\n");
}

TEST_CASE("a new GPU in an empty slot fills it undrained, and the old GPU's drain goes with it") {
  CoreHarness h(fiveGpuConf("SlurmctldParameters=drain_absent_gres\n"));
  registerCards(h, {0, 1, 2, 3, 4});
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Uuid=" + uuidOf(2), "Action=Drain", "Reason=bad"}).ok());
  registerCards(h, {0, 1, 3, 4});  // card 2 taken out: its slot is empty and keeps the operator's reason
  CHECK(drainedListing(h) == "NodeName=gq4 TresName=gres/gpu Index=2 Reason=bad\n");
  registerCards(h, {0, 1, 7, 3, 4});  // card 7 put in its place
  CHECK(drainedListing(h).empty());
  CHECK_FALSE(flagged(node(h), v1::NODE_FLAG_DEGRADED));
  uint64_t all = submit(h, gpuJob(5));
  CHECK(h.job(all).state() == v1::RUNNING);
}

TEST_CASE("a report that moves a GPU is refused and drains the node; a report that fits lifts it") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  registerCards(h, {0, 2, 1, 3, 4});
  v1::Node n = node(h);
  CHECK(flagged(n, v1::NODE_FLAG_DRAIN));
  CHECK(n.reason() == "GPU UUID order does not match the saved order");
  registerCards(h, {0, 1, 2, 3, 4});
  CHECK_FALSE(flagged(node(h), v1::NODE_FLAG_DRAIN));
}

TEST_CASE("State=RESUME of a node refused for its order drops the saved order; the next registration saves anew") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  registerCards(h, {4, 3, 2, 1, 0});
  REQUIRE(flagged(node(h), v1::NODE_FLAG_DRAIN));
  REQUIRE(updateNode(h, "RESUME").ok());
  CHECK_FALSE(flagged(node(h), v1::NODE_FLAG_DRAIN));
  registerCards(h, {4, 3, 2, 1, 0});
  CHECK_FALSE(flagged(node(h), v1::NODE_FLAG_DRAIN));
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=0", "Action=Drain", "Reason=x"}).ok());
  CHECK(drainedListing(h) == "NodeName=gq4 TresName=gres/gpu Index=0 Uuid=" + uuidOf(4) + " Reason=x\n");
}

TEST_CASE("State=UNDRAIN keeps TRES drains, State=RESUME resumes the present ones and names empty slots") {
  CoreHarness h(fiveGpuConf("SlurmctldParameters=drain_absent_gres\n"));
  registerCards(h, {0, 1, 2, 3, 4});
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=0", "Action=Drain", "Reason=ecc"}).ok());
  registerCards(h, {0, 1, 2, 3});  // card 4 gone
  REQUIRE(updateNode(h, "DRAIN", "maintenance").ok());
  auto undrain = updateNode(h, "UNDRAIN");
  REQUIRE(undrain.ok());
  CHECK_FALSE(flagged(node(h), v1::NODE_FLAG_DRAIN));
  CHECK(drainedListing(h).find("Index=0") != std::string::npos);
  auto resume = updateNode(h, "RESUME");
  REQUIRE(resume.ok());
  CHECK(drainedListing(h) == "NodeName=gq4 TresName=gres/gpu Index=4 Reason=gres/gpu:not_found\n");
  REQUIRE(resume->left_drained_size() == 1);
  CHECK(resume->left_drained(0).find("index 4") != std::string::npos);
  CHECK(flagged(node(h), v1::NODE_FLAG_DEGRADED));
}

TEST_CASE("State=RESUME_KEEP_TRES is accepted and keeps the TRES drains") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=2", "Action=Drain", "Reason=ecc"}).ok());
  REQUIRE(updateNode(h, "DRAIN", "maintenance").ok());
  REQUIRE(updateNode(h, "RESUME_KEEP_TRES").ok());
  CHECK_FALSE(flagged(node(h), v1::NODE_FLAG_DRAIN));
  CHECK(flagged(node(h), v1::NODE_FLAG_DEGRADED));
}

TEST_CASE("past MaxDrainedTres the node is drained with a reason naming the TRES; within it it stays DEGRADED") {
  CoreHarness h(fiveGpuConf("", "MaxDrainedTres=gres/gpu:2"));
  registerCards(h, {0, 1, 2, 3, 4});
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=0-1", "Action=Drain", "Reason=ecc"}).ok());
  CHECK_FALSE(flagged(node(h), v1::NODE_FLAG_DRAIN));
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=4", "Action=Drain", "Reason=ecc"}).ok());
  v1::Node n = node(h);
  CHECK(flagged(n, v1::NODE_FLAG_DRAIN));
  CHECK(n.reason() == "MaxDrainedTres exceeded: gres/gpu 3 drained, limit 2");
}

TEST_CASE("drains and the saved device order survive a controller restart") {
  std::string db = tempDb();
  {
    CoreHarness h(fiveGpuConf("SlurmctldParameters=drain_absent_gres\n"), db);
    registerCards(h, {0, 1, 2, 3, 4});
    REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=3", "Action=Drain", "Reason=xid"}).ok());
    registerCards(h, {0, 2, 3, 4});
  }
  CoreHarness h(fiveGpuConf("SlurmctldParameters=drain_absent_gres\n"), db);
  CHECK(drainedListing(h) ==
        "NodeName=gq4 TresName=gres/gpu Index=1 Reason=gres/gpu:not_found\n"
        "NodeName=gq4 TresName=gres/gpu Index=3 Uuid=" + uuidOf(3) + " Reason=xid\n");
  // The same report after the restart fits the order saved before it.
  registerCards(h, {0, 2, 3, 4});
  CHECK_FALSE(flagged(node(h), v1::NODE_FLAG_DRAIN));
  uint64_t three = submit(h, gpuJob(3));
  REQUIRE(h.job(three).state() == v1::RUNNING);
  CHECK(devicesOf(h, three) == std::vector<int>{0, 2, 4});
}

TEST_CASE("without UUIDs a drain stays on its index and no slot is kept") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4}, false);
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=1", "Action=Drain", "Reason=ecc"}).ok());
  registerCards(h, {0, 9, 2, 3, 4}, false);  // another card at index 1: still drained
  CHECK(drainedListing(h) == "NodeName=gq4 TresName=gres/gpu Index=1 Reason=ecc\n");
}

TEST_CASE("accounting is told each change of a node's drained TRES") {
  std::vector<std::pair<std::string, size_t>> told;
  // The harness's core, made again with the hook set.
  CoreHarness h(fiveGpuConf());
  h.core->stop();
  h.settle();
  h.core = std::make_unique<core::ControllerCore>(
      h.io, core::CoreOptions{.conf = &h.conf, .clock = &h.clock, .store = &h.store, .agents = &h.agents,
                              .timers = &h.timers, .tick = std::chrono::milliseconds(1),
                              .drainedTresChanged = [&](const std::string& name, const drain::DrainedTres& drained) {
                                told.emplace_back(name, drained.devices.size());
                              }});
  REQUIRE(h.core->start().ok());
  registerCards(h, {0, 1, 2, 3, 4});
  told.clear();
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=2", "Action=Drain", "Reason=ecc"}).ok());
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=2", "Action=Resume"}).ok());
  CHECK(told == std::vector<std::pair<std::string, size_t>>{{"gq4", 1}, {"gq4", 0}});
}

TEST_CASE("a MaxDrainedTres lowered by a reconfigure applies to what is drained already") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=1-2", "Action=Drain", "Reason=ecc"}).ok());
  REQUIRE_FALSE(flagged(node(h), v1::NODE_FLAG_DRAIN));
  auto done = h.await<Ok>([&](auto reply) { h.core->reconfigure(fiveGpuConf("", "MaxDrainedTres=gres/gpu:1"), reply); });
  REQUIRE(done.ok());
  h.settle();
  v1::Node n = node(h);
  CHECK(flagged(n, v1::NODE_FLAG_DRAIN));
  CHECK(n.reason() == "MaxDrainedTres exceeded: gres/gpu 2 drained, limit 1");
}

TEST_CASE("a slot whose device a refused report left out is never given, even once the node is undrained") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  registerCards(h, {0, 9, 1, 2, 3});  // a new card pushes the others along, and card 4 is gone
  REQUIRE(node(h).reason() == "GPU UUID order does not match the saved order");
  REQUIRE(updateNode(h, "UNDRAIN").ok());
  uint64_t all = submit(h, gpuJob(5));
  CHECK(h.job(all).state() == v1::PENDING);
  uint64_t four = submit(h, gpuJob(4));
  REQUIRE(h.job(four).state() == v1::RUNNING);
  CHECK(launchedFiles(h, four) ==
        std::vector<std::string>{"/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3"});
}

TEST_CASE("no GPU reported at all: every drain stays and, once resumed, no GPU is given") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=1", "Action=Drain", "Reason=ecc"}).ok());
  registerCards(h, {});
  v1::Node n = node(h);
  CHECK(flagged(n, v1::NODE_FLAG_DRAIN));
  CHECK(n.reason() == "gres/gpu count reported lower than configured (0 < 5)");
  CHECK(drainedListing(h) == "NodeName=gq4 TresName=gres/gpu Index=1 Uuid=" + uuidOf(1) + " Reason=ecc\n");
  REQUIRE(updateNode(h, "UNDRAIN").ok());
  uint64_t one = submit(h, gpuJob(1));
  CHECK(h.job(one).state() == v1::PENDING);
  registerCards(h, {0, 1, 2, 3, 4});  // the driver is back: the drain is still there
  CHECK(h.job(one).state() == v1::RUNNING);
  CHECK(drainedListing(h).find("Index=1") != std::string::npos);
}

TEST_CASE("no GPU reported with drain_absent_gres: every index is drained not_found and the node stays up") {
  CoreHarness h(fiveGpuConf("SlurmctldParameters=drain_absent_gres\n"));
  registerCards(h, {0, 1, 2, 3, 4});
  registerCards(h, {});
  CHECK_FALSE(flagged(node(h), v1::NODE_FLAG_DRAIN));
  CHECK(flagged(node(h), v1::NODE_FLAG_DEGRADED));
  std::string listing = drainedListing(h);
  for (int index = 0; index < 5; ++index) {
    CHECK(listing.find("Index=" + std::to_string(index) + " Reason=gres/gpu:not_found\n") != std::string::npos);
  }
}

TEST_CASE("a first registration short of GPUs drains the node and keeps no hole") {
  CoreHarness h(fiveGpuConf("SlurmctldParameters=drain_absent_gres\n"));
  registerCards(h, {0, 1, 2, 3});
  v1::Node n = node(h);
  CHECK(flagged(n, v1::NODE_FLAG_DRAIN));
  CHECK(n.reason() == "gres/gpu count reported lower than configured (4 < 5)");
  CHECK(drainedListing(h).empty());
}

TEST_CASE("a running job keeps its card when State=RESUME drops the saved order and the indexes change") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  uint64_t one = submit(h, gpuJob(1));
  REQUIRE(devicesOf(h, one) == std::vector<int>{0});
  REQUIRE(launchedFiles(h, one) == std::vector<std::string>{"/dev/nvidia0"});
  registerCards(h, {4, 3, 2, 1, 0}, true, {one});
  REQUIRE(updateNode(h, "RESUME").ok());
  REQUIRE(h.job(one).state() == v1::RUNNING);
  // Card 0 is now at index 4, and the job with it.
  CHECK(devicesOf(h, one) == std::vector<int>{4});
  uint64_t four = submit(h, gpuJob(4));
  REQUIRE(h.job(four).state() == v1::RUNNING);
  CHECK(launchedFiles(h, four) ==
        std::vector<std::string>{"/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3", "/dev/nvidia4"});
}

TEST_CASE("MaxDrainedTres leaves a node an operator took out in their state, with their reason") {
  CoreHarness h(fiveGpuConf("", "MaxDrainedTres=gres/gpu:1"));
  registerCards(h, {0, 1, 2, 3, 4});
  REQUIRE(updateNode(h, "DOWN", "psu swap").ok());
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=0-1", "Action=Drain", "Reason=ecc"}).ok());
  v1::Node n = node(h);
  CHECK(n.base_state() == v1::NODE_DOWN);
  CHECK(n.reason() == "psu swap");
}

TEST_CASE("a node reporting more GPUs than configured keeps its order at every registration") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4, 5});
  registerCards(h, {0, 1, 2, 3, 4, 5});
  CHECK_FALSE(flagged(node(h), v1::NODE_FLAG_DRAIN));
  uint64_t all = submit(h, gpuJob(5));
  REQUIRE(h.job(all).state() == v1::RUNNING);
  CHECK(launchedFiles(h, all).size() == 5);
}

TEST_CASE("a TRES request refused on one node of its list changes none of them") {
  CoreHarness h(testing::parseConf("ClusterName=unit\nSlurmdTimeout=30\nGresTypes=gpu\n"
                                   "NodeName=gq4 CPUs=8 CoresPerSocket=8 RealMemory=32000 Gres=gpu:5\n"
                                   "NodeName=gq5 CPUs=8 CoresPerSocket=8 RealMemory=32000 Gres=gpu:2\n"
                                   "PartitionName=work Nodes=gq[4-5] Default=YES MaxTime=600\n"));
  registerCards(h, {0, 1, 2, 3, 4});
  auto answer = updateTres(h, {"TresName=gres/gpu", "NodeName=gq[4-5]", "Index=3", "Action=Drain", "Reason=x"});
  REQUIRE_FALSE(answer.ok());
  CHECK(answer.error().find("gq5") != std::string::npos);
  CHECK(drainedListing(h).empty());
}

TEST_CASE("a shared GRES cannot be drained directly: drain the GPU behind it") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  auto answer = updateTres(h, {"TresName=gres/shard", "NodeName=gq4", "Count=2", "Action=Drain", "Reason=x"});
  REQUIRE_FALSE(answer.ok());
  CHECK(drainedListing(h).empty());
}

TEST_CASE("State=IDLE keeps the TRES drains") {
  CoreHarness h(fiveGpuConf());
  registerCards(h, {0, 1, 2, 3, 4});
  REQUIRE(updateTres(h, {"TresName=gres/gpu", "NodeName=gq4", "Index=2", "Action=Drain", "Reason=ecc"}).ok());
  REQUIRE(updateNode(h, "DRAIN", "maintenance").ok());
  REQUIRE(updateNode(h, "IDLE").ok());
  CHECK_FALSE(flagged(node(h), v1::NODE_FLAG_DRAIN));
  CHECK_FALSE(drainedListing(h).empty());
}

TEST_CASE("a saved order with an empty slot keeps each GRES's links on the right devices") {
  // Three GPUs (the middle one gone) and two NICs; links are per GRES name.
  core::NodeRecord record;
  record.conf.name = "gq4";
  record.hardwareKnown = true;
  auto addDevice = [&](const std::string& name, int file, const std::string& uuid, std::vector<int> links) {
    v1::GresDevice* device = record.hardware.add_gres();
    device->set_name(name);
    device->add_files("/dev/" + name + std::to_string(file));
    device->set_count(1);
    device->set_uuid(uuid);
    for (int link : links) device->add_links(link);
  };
  // As the agent reports them now: GPU 1 is missing, so the GPUs' links are between the two left.
  addDevice("gpu", 0, uuidOf(0), {-1, 7});
  addDevice("gpu", 2, uuidOf(2), {7, -1});
  addDevice("nic", 0, "", {-1, 3});
  addDevice("nic", 1, "", {3, -1});
  record.drainedTres.savedOrders.push_back(
      {.gres = "gpu",
       .slots = {{.uuid = uuidOf(0), .type = "", .present = true},
                 {.uuid = uuidOf(1), .type = "", .present = false},
                 {.uuid = uuidOf(2), .type = "", .present = true}}});
  select::NodeInfo info = core::selectInfoFor(record);
  REQUIRE(info.devices.size() == 5);
  CHECK(info.devices[0].uuid == uuidOf(0));
  CHECK(info.devices[0].links == std::vector<int>{-1, 0, 7});
  CHECK(info.devices[1].files.empty());
  CHECK(info.devices[1].links == std::vector<int>{0, -1, 0});
  CHECK(info.devices[2].files == std::vector<std::string>{"/dev/gpu2"});
  CHECK(info.devices[2].links == std::vector<int>{7, 0, -1});
  CHECK(info.devices[3].links == std::vector<int>{-1, 3});
  CHECK(info.devices[4].links == std::vector<int>{3, -1});
  CHECK((core::selectDrainsFor(record, info).devices & gres::bitOf(1)) != 0);
}
