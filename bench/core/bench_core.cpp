// The controller core's scheduling pass at scale: 10,000 simulated nodes
// (2 sockets x 32 cores, 8 GPUs each, registered through registerNode with
// their GPUs as devices) and 10,000 pending jobs, driven in-process with a
// fake agent gateway that acknowledges every launch at once, a ManualClock
// and the real SQLite store in a temporary folder. The core's periodic tick
// is set a day away, so only the passes measured here run.
//
// The queue: 10 filler jobs of 1,000 whole nodes each, then 10,000 jobs
// (by job number modulo 10, one task each, 8 CPUs per GPU: 0-3 one GPU,
// 4-5 four GPUs, 6-7 eight GPUs, i.e. the whole node, 8-9 CPU-only with 8
// CPUs), all held. By default they are written to the store before the
// core starts and recovered by ControllerCore::start(), as after a restart;
// --submit sends them through submitJob instead (about as costly per job as
// a pass, so it adds as much again to the run).
//
// Cases, each one machine-readable line:
//   saturated_pass  the fillers are released and started, so every node is
//                   full; then the 10,000 jobs are released and passes run
//                   that start nothing: the per-pass cost on a full cluster.
//                   Round 1 is the pass the releases trigger, later rounds
//                   are ControllerCore::schedulePass; the median is printed.
//   first_pass      the fillers are cancelled and one schedulePass places
//                   the 10,000 jobs on the empty cluster (selection, commit,
//                   the job record queued to the store, the launch handed to
//                   the gateway).
// A pass is timed on the core's strand, from a marker call queued just
// before it to its answer. The store commits (and fsyncs) on its writer
// thread; the passes do not wait for it.
//
// --backfill: the queue of "Backfill" below on a cluster 90% full of jobs
// with time limits: the full pass (every job tested, up to bf_max_job_test
// planned) and an event's pass (default_queue_depth jobs).
//
// Usage: bench_core [--submit] [--builtin] [--multifactor] [--array TASKS] [--backfill] [--parameters TEXT] [saturated rounds, default 3] [nodes, default 10000]
//                   [jobs, default 10000]
#include <boost/asio/io_context.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "common/config/gantry_conf.h"
#include "controller/accounting/accounting_open.h"
#include "controller/core/controller_core.h"

namespace {

using namespace gantry;
using SteadyClock = std::chrono::steady_clock;

constexpr int kGpusPerNode = 8;
constexpr int kCoresPerSocket = 32;
constexpr int kCpusPerGpu = 8;
// Set from the command line (smaller runs for profiling).
int kNodes = 10000;
int kJobs = 10000;
// The jobs that fill the cluster for the saturated pass: this many, each
// taking kNodes / kFillerJobs whole nodes.
constexpr int kFillerJobs = 10;
constexpr int kAccountingPairs = 3;  // off/on runs of --accounting

// Acknowledges every call at once, as an agent that started the step.
class AckGateway final : public core::AgentGateway {
 public:
  void launchStep(const core::AgentAddress&, v1::LaunchStepRequest, Callback done) override { ack(done); }
  void terminateJob(const core::AgentAddress&, uint64_t, Callback done) override { ack(done); }
  void signalJob(const core::AgentAddress&, uint64_t, const std::string&, int, core::SignalScope,
                 Callback done) override {
    ack(done);
  }
  void suspendJob(const core::AgentAddress&, uint64_t, Callback done) override { ack(done); }
  void resumeJob(const core::AgentAddress&, uint64_t, Callback done) override { ack(done); }
  void reconfigure(const core::AgentAddress&, Callback done) override { ack(done); }

 private:
  static void ack(const Callback& done) {
    if (done) done(okStatus());
  }
};

// --builtin: SchedulerType=sched/builtin, no planned starts (backfill's
// cost is the difference from the default, sched/backfill).
bool gBuiltin = false;
// --multifactor: PriorityType=priority/multifactor with every weight set,
// so each pass works out every pending job's priority.
bool gMultifactor = false;
// --parameters TEXT: SchedulerParameters=TEXT (bf_max_job_test=10000, say).
std::string gSchedulerParameters;

std::string confText() {
  return std::string(gBuiltin ? "SchedulerType=sched/builtin\n" : "") +
         (gSchedulerParameters.empty() ? std::string() : "SchedulerParameters=" + gSchedulerParameters + "\n") +
         std::string(gMultifactor ? "PriorityType=priority/multifactor\nPriorityWeightAge=1000\n"
                                    "PriorityWeightFairshare=10000\nPriorityWeightJobSize=100\n"
                                    "PriorityWeightPartition=100\n"
                                  : "") +
         "ClusterName=bench\nSlurmctldHost=localhost\nGresTypes=gpu\nMaxJobCount=1000000\nMaxArraySize=1000001\n"
         "NodeName=n[00001-" + std::to_string(kNodes) + "] Sockets=2 CoresPerSocket=" +
         std::to_string(kCoresPerSocket) + " ThreadsPerCore=1 RealMemory=1024000 Gres=gpu:" +
         std::to_string(kGpusPerNode) + "\n"
         "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE\n";
}

v1::RegisterRequest registration(const std::string& name) {
  v1::RegisterRequest request;
  request.set_node_name(name);
  v1::NodeHardware* hw = request.mutable_hardware();
  hw->set_cpus(2 * kCoresPerSocket);
  hw->set_sockets(2);
  hw->set_cores_per_socket(kCoresPerSocket);
  hw->set_threads_per_core(1);
  hw->set_real_memory_mb(1024000);
  for (int g = 0; g < kGpusPerNode; ++g) {
    v1::GresDevice* gpu = hw->add_gres();
    gpu->set_index(g);
    gpu->set_name("gpu");
    gpu->set_type("h100");
    gpu->add_files("/dev/nvidia" + std::to_string(g));
    gpu->set_count(1);
    int socket = g / (kGpusPerNode / 2);
    for (int c = 0; c < kCoresPerSocket; ++c) gpu->add_cores(socket * kCoresPerSocket + c);
  }
  return request;
}

// GPUs of job `n` (0 for CPU-only) and the slots it takes.
int gpusOf(int n) {
  switch (n % 10) {
    case 0: case 1: case 2: case 3: return 1;
    case 4: case 5: return 4;
    case 6: case 7: return 8;
    default: return 0;
  }
}
int slotsOf(int n) { return std::max(gpusOf(n), 1); }

v1::JobSpec jobSpec(int gpus, int cpus) {
  v1::JobSpec spec;
  spec.set_name("bench");
  spec.set_script("#!/bin/sh\ntrue\n");
  spec.set_work_dir("/");
  spec.set_stdout_pattern("/dev/null");
  spec.set_min_nodes(1);
  spec.set_max_nodes(1);
  spec.set_ntasks(1);
  spec.set_cpus_per_task(cpus);
  if (gpus > 0) spec.set_gpus_per_node(gpus);
  spec.set_hold(true);  // released all at once, right before the timed pass
  return spec;
}

// A job of `nodes` whole nodes: every GPU and CPU of each.
v1::JobSpec wholeNodesSpec(int nodes) {
  v1::JobSpec spec = jobSpec(kGpusPerNode, kGpusPerNode * kCpusPerGpu);
  spec.set_name("filler");
  spec.set_min_nodes(nodes);
  spec.set_max_nodes(nodes);
  spec.set_ntasks(nodes);
  spec.set_ntasks_per_node(1);
  return spec;
}

class Bench {
 public:
  explicit Bench(const std::string& dbPath) : conf_(mustParse(confText())) {
    if (auto status = store_.open(dbPath); !status) fail(status.error());
    clock_.set(TimePoint(std::chrono::seconds(1'700'000'000)));
  }
  ~Bench() {
    if (core_) {
      core_->stop();
      settle();
    }
    store_.close();
  }

  // Writes held pending jobs the way submitJob records them, before start().
  std::vector<uint64_t> preload(const std::vector<v1::JobSpec>& specs) {
    std::vector<uint64_t> ids;
    for (const auto& spec : specs) {
      v1::Job job;
      job.set_job_id(++preloaded_);
      *job.mutable_spec() = spec;
      job.mutable_spec()->set_partition("gpu");
      job.set_user(user_.user);
      job.set_uid(user_.uid);
      job.set_gid(user_.gid);
      job.set_state(v1::PENDING);
      job.set_reason("JobHeldUser");
      job.set_submit_time(toUnixSeconds(clock_.now()));
      job.set_time_limit_seconds(-1);
      job.set_time_limit_minutes(-1);
      store_.saveJob(job);
      ids.push_back(job.job_id());
    }
    store_.flush();
    return ids;
  }

  // With an accounting store, every persist also gets the job's records
  // built and handed on (journaled when they end): the cost measured by
  // --accounting.
  void startCore(accounting::AccountingStore* accounting = nullptr) {
    accounting_ = accounting;
    // A tick far away keeps the core's own periodic work out of the way.
    core_ = std::make_unique<core::ControllerCore>(
        io_, core::CoreOptions{.conf = &conf_, .clock = &clock_, .store = &store_, .agents = &agents_,
                               .tick = std::chrono::hours(24), .accounting = accounting});
    if (auto status = core_->start(); !status) fail(status.error());
    settle();
  }

  void registerAll() {
    std::atomic<int> done{0};
    for (int n = 1; n <= kNodes; ++n) {
      char name[16];
      std::snprintf(name, sizeof name, "n%05d", n);
      core_->registerNode(registration(name), [&](Result<v1::RegisterResponse> r) {
        if (!r) fail("registration: " + r.error());
        ++done;
      });
    }
    waitFor(done, kNodes);
  }

  // Submits held jobs through the core. `timing`, when given, gets the
  // wall and strand CPU seconds until the last reply (each sent once the
  // job is durable), before the stores are settled.
  std::vector<uint64_t> submit(const std::vector<v1::JobSpec>& specs, std::pair<double, double>* timing = nullptr) {
    auto wallStart = SteadyClock::now();
    double cpuStart = strandCpuSeconds();
    int count = static_cast<int>(specs.size());
    std::vector<uint64_t> ids(count);
    std::atomic<int> done{0};
    for (int i = 0; i < count; ++i) {
      v1::SubmitJobRequest request;
      *request.mutable_spec() = specs[i];
      core_->submitJob(std::move(request), user_, [&, i](Result<v1::SubmitJobResponse> r) {
        if (!r) fail("submit: " + r.error());
        ids[i] = r->job_id();
        ++done;
      });
    }
    waitFor(done, count);
    if (timing != nullptr) {
      *timing = {std::chrono::duration<double>(SteadyClock::now() - wallStart).count(), strandCpuSeconds() - cpuStart};
    }
    settle();
    return ids;
  }

  // Releases `ids` and times one schedulePass run right after the last
  // release, on the strand. The pass the releases ask for runs later.
  core::ControllerCore::SchedulePassReport releaseAndPass(const std::vector<uint64_t>& ids, double* seconds) {
    std::atomic<int> released{0};
    for (uint64_t id : ids) {
      core_->jobAction(core::ControllerCore::JobAction::Release, id, "", root_, [&](Result<Ok> r) {
        if (!r) fail("release: " + r.error());
        ++released;
      });
    }
    auto report = timedPass(seconds);
    waitFor(released, static_cast<int>(ids.size()));
    settle();
    return report;
  }

  // Releases `ids` and times the pass the releases ask for (queued behind
  // them): a marker call after the releases records the start and queues a
  // second marker, which runs right after that pass.
  double releaseAndTimeTriggeredPass(const std::vector<uint64_t>& ids) {
    std::atomic<int> released{0};
    for (uint64_t id : ids) {
      core_->jobAction(core::ControllerCore::JobAction::Release, id, "", root_, [&](Result<Ok> r) {
        if (!r) fail("release: " + r.error());
        ++released;
      });
    }
    std::optional<SteadyClock::time_point> start, end;
    core_->getConfig([&](Result<v1::GetConfigResponse>) {
      start = SteadyClock::now();
      core_->getConfig([&](Result<v1::GetConfigResponse>) { end = SteadyClock::now(); });
    });
    while (!end) io_.run_one();
    waitFor(released, static_cast<int>(ids.size()));
    settle();
    return std::chrono::duration<double>(*end - *start).count();
  }

  // Cancels `ids` in one request and times the pass right after it.
  core::ControllerCore::SchedulePassReport cancelAndPass(const std::vector<uint64_t>& ids, double* seconds) {
    v1::CancelJobRequest request;
    for (uint64_t id : ids) request.add_job_ids(id);
    std::atomic<int> cancelled{0};
    core_->cancelJob(request, user_, [&](Result<v1::CancelJobResponse> r) {
      if (!r || r->errors_size() > 0) fail("cancel failed");
      ++cancelled;
    });
    auto report = timedPass(seconds);
    waitFor(cancelled, 1);
    settle();
    return report;
  }

  // One pass, timed from the moment it is the strand's next handler: a
  // getConfig posted just before it marks the start.
  core::ControllerCore::SchedulePassReport timedPass(double* seconds, size_t depth = SIZE_MAX) {
    std::optional<SteadyClock::time_point> start, end;
    std::optional<core::ControllerCore::SchedulePassReport> report;
    double cpuStart = 0;
    core_->getConfig([&](Result<v1::GetConfigResponse>) {
      start = SteadyClock::now();
      cpuStart = strandCpuSeconds();
    });
    core_->schedulePass(
        [&](Result<core::ControllerCore::SchedulePassReport> r) {
          end = SteadyClock::now();
          lastPassCpu_ = strandCpuSeconds() - cpuStart;
          if (!r) fail("schedulePass: " + r.error());
          report = *r;
        },
        depth);
    while (!report) io_.run_one();
    *seconds = std::chrono::duration<double>(*end - *start).count();
    return *report;
  }

  // Runs queued handlers until the core and both stores are idle, so the
  // writes one case caused are not left to run during the next.
  void settle() {
    do {
      store_.flush();
      if (accounting_ != nullptr) {
        core_->flushAccounting();
        accounting_->flush();
      }
    } while (io_.poll() > 0);
  }

  // CPU time of this thread, which runs the core's strand: what a case
  // costs the core itself, whatever the stores' writer threads take from
  // the same cores meanwhile.
  static double strandCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  }
  double lastPassCpuSeconds() const { return lastPassCpu_; }

  uint64_t storeTransactions() const { return store_.transactions(); }

  [[noreturn]] static void fail(const std::string& message) {
    std::fprintf(stderr, "bench_core: %s\n", message.c_str());
    std::exit(1);
  }

 private:
  static config::GantryConf mustParse(const std::string& text) {
    auto loaded = config::parseGantryConf(text, "bench.conf");
    if (!loaded) fail(loaded.error());
    return loaded->conf;
  }
  // Blocks rather than spins while the stores' threads work, so this
  // thread's CPU time stays the strand's.
  void waitFor(const std::atomic<int>& counter, int target) {
    while (counter.load() < target) io_.run_one_for(std::chrono::milliseconds(1));
  }

  uint64_t preloaded_ = 0;
  config::GantryConf conf_;
  ManualClock clock_;
  store::JobStore store_;
  AckGateway agents_;
  boost::asio::io_context io_;
  std::unique_ptr<core::ControllerCore> core_;
  accounting::AccountingStore* accounting_ = nullptr;
  double lastPassCpu_ = 0;
  auth::Identity user_{.uid = 1000, .gid = 1000, .user = "bench"};
  auth::Identity root_{.uid = 0, .gid = 0, .user = "root"};
};

std::filesystem::path makeTempDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/gantry-bench-core-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("bench_core: mkdtemp");
    std::exit(1);
  }
  return pattern;
}

void printPass(const char* name, double seconds, const core::ControllerCore::SchedulePassReport& report) {
  std::printf("case=%s ms=%.1f pending=%zu started=%zu planned=%zu us_per_pending_job=%.2f\n", name, seconds * 1e3,
              report.pending, report.started, report.planned, report.pending ? seconds * 1e6 / report.pending : 0.0);
}

struct RunTimes {
  double submitPerSecond = 0;  // with --submit
  double submitCpuMs = 0;
  double saturatedMs = 0;
  double saturatedCpuMs = 0;
  double firstMs = 0;
  double firstCpuMs = 0;
};

RunTimes runOnce(const std::filesystem::path& dir, bool viaSubmit, int rounds, bool withAccounting) {
  RunTimes times;
  std::unique_ptr<accounting::AccountingStore> accountingStore;
  if (withAccounting) {
    auto opened = accounting::openAccountingStore(
        {.backend = accounting::AccountingConnection::Backend::Sqlite, .path = (dir / "accounting.db").string()});
    if (!opened) Bench::fail(opened.error());
    accountingStore = std::move(*opened);
  }
  for (const char* file : {"bench.db", "bench.db-wal", "bench.db-shm"}) std::filesystem::remove(dir / file);
  Bench bench((dir / "bench.db").string());
  auto setupStart = SteadyClock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(SteadyClock::now() - setupStart).count(); };
  // Fillers first, so they come first in the queue: whole nodes, kNodes / kFillerJobs each.
  int fillerNodes = kNodes / kFillerJobs;
  std::vector<v1::JobSpec> fillerSpecs(kFillerJobs, wholeNodesSpec(fillerNodes)), jobSpecs;
  for (int i = 0; i < kJobs; ++i) jobSpecs.push_back(jobSpec(gpusOf(i), slotsOf(i) * kCpusPerGpu));
  std::vector<uint64_t> fillers, jobs;
  if (!viaSubmit) {
    fillers = bench.preload(fillerSpecs);
    jobs = bench.preload(jobSpecs);
  }
  bench.startCore(accountingStore.get());
  bench.registerAll();
  if (viaSubmit) {
    fillers = bench.submit(fillerSpecs);
    std::pair<double, double> timing;
    jobs = bench.submit(jobSpecs, &timing);
    times.submitPerSecond = kJobs / timing.first;
    times.submitCpuMs = timing.second * 1e3;
    std::printf("case=submit accounting=%s jobs=%d ms=%.1f jobs_per_s=%.0f strand_cpu_ms=%.1f\n",
                withAccounting ? "on" : "off", kJobs, timing.first * 1e3, times.submitPerSecond, times.submitCpuMs);
  }
  std::printf("# setup: %d nodes registered with %d GPUs each, %d held jobs queued, %.1f s\n", kNodes,
              kGpusPerNode, kJobs, elapsed());

  double seconds = 0;
  auto fill = bench.releaseAndPass(fillers, &seconds);
  std::printf("# fill: %zu jobs of %d whole nodes started, every node full\n", fill.started, fillerNodes);
  if (fill.started != static_cast<size_t>(kFillerJobs)) bench.fail("the cluster could not be filled");

  // Saturated: the jobs are released onto the full cluster; nothing fits.
  std::vector<double> each{bench.releaseAndTimeTriggeredPass(jobs)};
  core::ControllerCore::SchedulePassReport saturated;
  std::vector<double> cpu;
  for (int r = 1; r < rounds; ++r) {
    saturated = bench.timedPass(&seconds);
    each.push_back(seconds);
    cpu.push_back(bench.lastPassCpuSeconds());
    if (saturated.started != 0) bench.fail("a job started on the full cluster");
  }
  std::sort(cpu.begin(), cpu.end());
  times.saturatedCpuMs = cpu.empty() ? 0 : cpu[cpu.size() / 2] * 1e3;
  std::vector<double> sorted = each;
  std::sort(sorted.begin(), sorted.end());
  printPass("saturated_pass", sorted[sorted.size() / 2], saturated);
  times.saturatedMs = sorted[sorted.size() / 2] * 1e3;
  std::string list;
  for (double t : each) list += (list.empty() ? "" : ",") + std::to_string(static_cast<int>(t * 1e3 + 0.5));
  std::printf("# saturated_pass rounds_ms=%s (median reported); strand_cpu_ms=%.1f (median of the rounds after the first)\n",
              list.c_str(), times.saturatedCpuMs);

  // First pass: the fillers end, and one pass places the queue on the empty cluster.
  auto first = bench.cancelAndPass(fillers, &seconds);
  printPass("first_pass", seconds, first);
  times.firstMs = seconds * 1e3;
  times.firstCpuMs = bench.lastPassCpuSeconds() * 1e3;
  std::printf("# first_pass strand_cpu_ms=%.1f\n", times.firstCpuMs);
  std::printf("# done in %.1f s; store transactions=%llu\n", elapsed(),
              static_cast<unsigned long long>(bench.storeTransactions()));
  if (accountingStore) accountingStore->flush();
  return times;
}

// Runs one case in a child process, so every case starts from a fresh
// heap: run in one process, the second case paid for the first one's
// fragmented heap, which was as large as the difference being measured.
RunTimes runInChild(const std::filesystem::path& dir, int rounds, bool withAccounting) {
  int fds[2];
  if (pipe(fds) != 0) Bench::fail("pipe failed");
  std::fflush(stdout);
  pid_t child = fork();
  if (child < 0) Bench::fail("fork failed");
  if (child == 0) {
    close(fds[0]);
    RunTimes times = runOnce(dir, true, rounds, withAccounting);
    std::fflush(stdout);
    bool written = write(fds[1], &times, sizeof times) == static_cast<ssize_t>(sizeof times);
    _exit(written ? 0 : 1);
  }
  close(fds[1]);
  RunTimes times;
  bool read = ::read(fds[0], &times, sizeof times) == static_cast<ssize_t>(sizeof times);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!read || !WIFEXITED(status) || WEXITSTATUS(status) != 0) Bench::fail("a case failed in its child process");
  return times;
}

// The best of each measure over the runs: on a shared machine the other
// load only ever makes a run slower.
RunTimes bestOf(const std::vector<RunTimes>& runs) {
  RunTimes best = runs.front();
  for (const RunTimes& r : runs) {
    best.submitPerSecond = std::max(best.submitPerSecond, r.submitPerSecond);
    best.submitCpuMs = std::min(best.submitCpuMs, r.submitCpuMs);
    best.saturatedMs = std::min(best.saturatedMs, r.saturatedMs);
    best.saturatedCpuMs = std::min(best.saturatedCpuMs, r.saturatedCpuMs);
    best.firstMs = std::min(best.firstMs, r.firstMs);
    best.firstCpuMs = std::min(best.firstCpuMs, r.firstCpuMs);
  }
  return best;
}

}  // namespace

// The controller's resident memory, in kB (VmRSS).
long residentKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return 0;
}

// --array TASKS: one array of TASKS tasks submitted held in one call on
// the full cluster: the submission's time, what the array adds to the
// controller's resident memory, and a pass with the array released onto
// the full cluster (nothing fits: its pending part is one job to the pass).
void runArrayCase(const std::filesystem::path& dir, int tasks) {
  for (const char* file : {"bench.db", "bench.db-wal", "bench.db-shm"}) std::filesystem::remove(dir / file);
  Bench bench((dir / "bench.db").string());
  bench.startCore();
  bench.registerAll();
  int fillerNodes = kNodes / kFillerJobs;
  auto fillers = bench.submit(std::vector<v1::JobSpec>(kFillerJobs, wholeNodesSpec(fillerNodes)));
  double seconds = 0;
  bench.releaseAndPass(fillers, &seconds);
  v1::JobSpec spec = jobSpec(1, kCpusPerGpu);
  spec.set_array("0-" + std::to_string(tasks - 1));
  long before = residentKb();
  std::pair<double, double> timing;
  auto ids = bench.submit({spec}, &timing);
  long after = residentKb();
  std::printf("case=array_submit tasks=%d ms=%.1f strand_cpu_ms=%.1f rss_added_kb=%ld\n", tasks, timing.first * 1e3,
              timing.second * 1e3, after - before);
  auto report = bench.releaseAndPass(ids, &seconds);
  printPass("array_saturated_pass", seconds, report);
}

// Backfill: the queue is job n of kJobs, in submission order (FIFO):
//   n % 100 == 99   an array of 50 one-GPU tasks, 30 minutes each;
//   n % 20 == 0     2^((n / 20) % 7) whole nodes (1 to 64), 2 to 12 hours;
//   otherwise       1, 2, 4 or 8 GPUs on one node (8 CPUs per GPU), for 10
//                   minutes to 8 hours.
// The running load: jobs of kNodes / 100 whole nodes on 90% of the nodes,
// with limits of 1 to 24 hours, so that the first pass both starts jobs on
// the free tenth and plans the rest behind the running ones.
v1::JobSpec backfillJob(int n) {
  static const int kMinutes[] = {10, 30, 60, 240, 480};
  if (n % 100 == 99) {
    v1::JobSpec spec = jobSpec(1, kCpusPerGpu);
    spec.set_array("0-49");
    spec.set_time_limit_minutes(30);
    return spec;
  }
  if (n % 20 == 0) {
    v1::JobSpec spec = wholeNodesSpec(1 << ((n / 20) % 7));
    spec.set_name("bench");
    spec.set_time_limit_minutes(120 * (1 + (n / 20) % 6));
    return spec;
  }
  int gpus = 1 << (n % 4);
  v1::JobSpec spec = jobSpec(gpus, gpus * kCpusPerGpu);
  spec.set_time_limit_minutes(kMinutes[n % 5]);
  return spec;
}

void runBackfillCase(const std::filesystem::path& dir, int rounds) {
  for (const char* file : {"bench.db", "bench.db-wal", "bench.db-shm"}) std::filesystem::remove(dir / file);
  Bench bench((dir / "bench.db").string());
  bench.startCore();
  bench.registerAll();
  const int perFiller = std::max(1, kNodes / 100);
  std::vector<v1::JobSpec> running;
  for (int used = 0; used + perFiller <= kNodes * 9 / 10; used += perFiller) {
    v1::JobSpec spec = wholeNodesSpec(perFiller);
    spec.set_time_limit_minutes(60 * (1 + static_cast<int>(running.size()) % 24));
    running.push_back(spec);
  }
  double seconds = 0;
  auto filled = bench.releaseAndPass(bench.submit(running), &seconds);
  std::vector<v1::JobSpec> queue;
  for (int n = 0; n < kJobs; ++n) queue.push_back(backfillJob(n));
  auto ids = bench.submit(queue);
  std::printf("# backfill: %zu running jobs of %d nodes (90%% of the cluster), %d jobs queued (arrays of 50 "
              "tasks among them)\n", filled.started, perFiller, kJobs);
  auto first = bench.releaseAndPass(ids, &seconds);
  printPass("backfill_first_full_pass", seconds, first);
  std::vector<double> full, event;
  core::ControllerCore::SchedulePassReport steady, shallow;
  for (int r = 0; r < rounds; ++r) {
    steady = bench.timedPass(&seconds);
    full.push_back(seconds);
    shallow = bench.timedPass(&seconds, 100);
    event.push_back(seconds);
  }
  std::sort(full.begin(), full.end());
  std::sort(event.begin(), event.end());
  printPass("backfill_full_pass", full[full.size() / 2], steady);
  std::printf("case=event_pass depth=100 ms=%.1f started=%zu planned=%zu (median of %d)\n",
              event[event.size() / 2] * 1e3, shallow.started, shallow.planned, rounds);
}

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  bool viaSubmit = false, accountingCompare = false;
  int arrayTasks = 0;
  bool backfill = false;
  while (!args.empty() && args.front().rfind("--", 0) == 0) {
    if (args.front() == "--submit") {
      viaSubmit = true;
    } else if (args.front() == "--builtin") {
      gBuiltin = true;
    } else if (args.front() == "--multifactor") {
      gMultifactor = true;
    } else if (args.front() == "--array" && args.size() > 1) {
      arrayTasks = std::max(2, std::atoi(args[1].c_str()));
      args.erase(args.begin());
    } else if (args.front() == "--backfill") {
      backfill = true;
    } else if (args.front() == "--parameters" && args.size() > 1) {
      gSchedulerParameters = args[1];
      args.erase(args.begin());
    } else if (args.front() == "--accounting") {
      // Accounting off, then on, in one run: submit throughput and
      // scheduling passes side by side, with their ratios.
      accountingCompare = true;
      viaSubmit = true;
    } else {
      std::fprintf(stderr, "bench_core: unknown option %s (expected --submit, --builtin, --multifactor, --array TASKS, --backfill, --parameters TEXT or --accounting)\n", args.front().c_str());
      return 2;
    }
    args.erase(args.begin());
  }
  int rounds = args.size() > 0 ? std::max(2, std::atoi(args[0].c_str())) : 3;
  if (args.size() > 1) kNodes = std::max(kFillerJobs, std::atoi(args[1].c_str()) / kFillerJobs * kFillerJobs);
  if (args.size() > 2) kJobs = std::max(1, std::atoi(args[2].c_str()));
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::filesystem::path dir = makeTempDir();
  std::printf("# bench_core nodes=%d gpus_per_node=%d cores_per_node=%d jobs=%d saturated_rounds=%d queue=%s "
              "scheduler=%s priority=%s parameters=%s\n",
              kNodes, kGpusPerNode, 2 * kCoresPerSocket, kJobs, rounds, viaSubmit ? "submitted" : "recovered",
              gBuiltin ? "sched/builtin" : "sched/backfill", gMultifactor ? "multifactor" : "basic",
              gSchedulerParameters.empty() ? "(defaults)" : gSchedulerParameters.c_str());
  std::printf("# store: SQLite in a temporary folder; its commits and fsyncs run on the store's writer thread, "
              "outside the timed passes\n");
  if (arrayTasks > 0) {
    runArrayCase(dir, arrayTasks);
  } else if (backfill) {
    runBackfillCase(dir, rounds);
  } else if (!accountingCompare) {
    runOnce(dir, viaSubmit, rounds, false);
  } else {
    // Off and on alternate, each in a fresh process; the best of each
    // case is compared.
    std::vector<RunTimes> offRuns, onRuns;
    for (int pair = 1; pair <= kAccountingPairs; ++pair) {
      std::printf("# accounting off (run %d of %d)\n", pair, kAccountingPairs);
      offRuns.push_back(runInChild(dir, rounds, false));
      std::printf("# accounting on, SQLite accounting store in the same folder (run %d of %d)\n", pair,
                  kAccountingPairs);
      onRuns.push_back(runInChild(dir, rounds, true));
      std::filesystem::remove(dir / "accounting.db");
    }
    RunTimes off = bestOf(offRuns), on = bestOf(onRuns);
    std::printf("best submit_jobs_per_s off=%.0f on=%.0f; strand_cpu_ms off=%.1f on=%.1f\n", off.submitPerSecond,
                on.submitPerSecond, off.submitCpuMs, on.submitCpuMs);
    std::printf("best saturated_pass_ms off=%.1f on=%.1f; strand_cpu_ms off=%.1f on=%.1f\n", off.saturatedMs,
                on.saturatedMs, off.saturatedCpuMs, on.saturatedCpuMs);
    std::printf("best first_pass_ms off=%.1f on=%.1f; strand_cpu_ms off=%.1f on=%.1f\n", off.firstMs, on.firstMs,
                off.firstCpuMs, on.firstCpuMs);
    // Wall time includes what the stores' writer threads take from the
    // same cores; the strand's CPU time is the core's own cost.
    std::printf("ratio submit_on_over_off=%.3f saturated_pass_on_over_off=%.3f first_pass_on_over_off=%.3f\n",
                on.submitPerSecond / off.submitPerSecond, on.saturatedMs / off.saturatedMs, on.firstMs / off.firstMs);
    std::printf("ratio_strand_cpu submit_on_over_off=%.3f saturated_pass_on_over_off=%.3f "
                "first_pass_on_over_off=%.3f\n",
                on.submitCpuMs / off.submitCpuMs, on.saturatedCpuMs / off.saturatedCpuMs, on.firstCpuMs / off.firstCpuMs);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
