// Requests of one controller RPC handler, decoded from the fuzzer's bytes
// and handed to a real ControllerCore the way the service adapter hands
// them (field checks of controller/rpc/request_checks.h first). The core
// has a fake agent gateway, simulated time and a SQLite store in a
// temporary folder made once per process.
//
//   GANTRY_FUZZ_HANDLER=SubmitJob fuzz_core_rpc CORPUS...   (one handler per run)
//   GANTRY_FUZZ_SEEDS=DIR      also write valid requests of that handler to DIR
//
// Every input starts from the same state: a copy of a prepared database
// (two registered nodes, a running batch job, a running allocation with a
// step, a held pending job) recovered by a fresh core. Checked for each
// input: no crash or sanitizer report, an answer within a bounded number
// of polls (no hang), and, when the answer is an error, no change to what
// the core lists (jobs with steps, nodes, partitions) and no call to an
// agent.
#include <unistd.h>

#include <google/protobuf/stubs/logging.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <spdlog/spdlog.h>
#include <string>

#include "common/config/gantry_conf.h"
#include "common/util/timer.h"
#include "controller/accounting/sqlite_accounting_store.h"
#include "controller/core/controller_core.h"
#include "controller/rpc/accounting_queries.h"
#include "controller/rpc/request_checks.h"

namespace {

using namespace gantry;
namespace fs = std::filesystem;

// Polls of the core's io_context an answer may take; far more than any
// handler needs (a store write and a strand hop or two).
constexpr int kMaxPolls = 200;

constexpr const char* kConf =
    "ClusterName=fuzz\nGresTypes=gpu\nSlurmdTimeout=300\n"
    "NodeName=n1 CPUs=8 Sockets=2 CoresPerSocket=2 ThreadsPerCore=2 RealMemory=8000 Gres=gpu:2\n"
    "NodeName=n2 CPUs=4 CoresPerSocket=4 RealMemory=4000\n"
    "PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=60\n"
    "PartitionName=long Nodes=n2 MaxTime=UNLIMITED\n";

// Counts what the core asks of the nodes; every call succeeds at once.
class CountingGateway final : public core::AgentGateway {
 public:
  void launchStep(const core::AgentAddress&, v1::LaunchStepRequest, Callback done) override { answer(done); }
  void terminateJob(const core::AgentAddress&, uint64_t, Callback done) override { answer(done); }
  void signalJob(const core::AgentAddress&, uint64_t, const std::string&, int, core::SignalScope,
                 Callback done) override {
    answer(done);
  }
  void suspendJob(const core::AgentAddress&, uint64_t, Callback done) override { answer(done); }
  void resumeJob(const core::AgentAddress&, uint64_t, Callback done) override { answer(done); }
  void reconfigure(const core::AgentAddress&, Callback done) override { answer(done); }
  size_t calls = 0;

 private:
  void answer(const Callback& done) {
    ++calls;
    if (done) done(okStatus());
  }
};

config::GantryConf fuzzConf() {
  auto loaded = config::parseGantryConf(kConf, "fuzz.conf", {.followIncludes = false});
  if (!loaded.ok()) {
    std::fprintf(stderr, "fuzz_core_rpc: bad built-in configuration: %s\n", loaded.error().c_str());
    std::abort();
  }
  return loaded->conf;
}

// One core on one database file, driven by hand on this thread.
struct Core {
  explicit Core(const std::string& db) : conf(fuzzConf()) {
    if (!store.open(db).ok()) std::abort();
    clock.set(TimePoint(std::chrono::seconds(1'700'000'000)));
    core = std::make_unique<core::ControllerCore>(
        io, core::CoreOptions{.conf = &conf, .clock = &clock, .store = &store, .agents = &agents,
                              .timers = &timers, .tick = std::chrono::milliseconds(500)});
    if (!core->start().ok()) std::abort();
    settle();
  }
  ~Core() {
    core->stop();
    settle();
    store.close();
  }

  // Runs the call; nullopt when no answer came within kMaxPolls polls.
  template <typename T, typename Start>
  std::optional<Result<T>> await(Start start) {
    std::optional<Result<T>> answer;
    start([&answer](Result<T> result) { answer.emplace(std::move(result)); });
    for (int i = 0; i < kMaxPolls && !answer; ++i) {
      timers.runDue();
      io.poll();
      if (!answer) store.flush();
    }
    return answer;
  }

  template <typename T, typename Start>
  Result<T> must(Start start) {
    auto answer = await<T>(start);
    if (!answer || !answer->ok()) {
      std::fprintf(stderr, "fuzz_core_rpc: set-up call failed: %s\n", answer ? answer->error().c_str() : "no answer");
      std::abort();
    }
    return std::move(*answer);
  }

  void settle() {
    for (int i = 0; i < kMaxPolls; ++i) {
      timers.runDue();
      store.flush();
      if (io.poll() == 0) return;
    }
  }

  // Everything a caller can see of the state, as bytes.
  std::string digest() {
    v1::ListJobsRequest jobs;
    jobs.set_include_finished(true);
    jobs.set_include_steps(true);
    std::string out = must<v1::ListJobsResponse>([&](auto reply) { core->listJobs(jobs, reply); })->SerializeAsString();
    out += must<v1::ListNodesResponse>([&](auto reply) { core->listNodes({}, reply); })->SerializeAsString();
    out += must<v1::ListPartitionsResponse>([&](auto reply) {
             core->listPartitions({}, reply);
           })->SerializeAsString();
    out += "agent calls " + std::to_string(agents.calls);
    return out;
  }

  config::GantryConf conf;
  ManualClock clock;
  ManualTimerQueue timers{clock};
  store::JobStore store;
  CountingGateway agents;
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> busy = boost::asio::make_work_guard(io);
  std::unique_ptr<core::ControllerCore> core;
};

const auth::Identity kRoot{.uid = 0, .gid = 0, .user = "root"};
const auth::Identity kOwner{.uid = 1000, .gid = 1000, .user = "owner"};
const auth::Identity kStranger{.uid = 2000, .gid = 2000, .user = "stranger"};

v1::RegisterRequest registration(const std::string& node) {
  v1::RegisterRequest request;
  request.set_node_name(node);
  request.set_addr("127.0.0.1");
  request.set_port(6818);
  v1::NodeHardware* hw = request.mutable_hardware();
  if (node == "n1") {
    hw->set_cpus(8);
    hw->set_sockets(2);
    hw->set_cores_per_socket(2);
    hw->set_threads_per_core(2);
    hw->set_real_memory_mb(8000);
    for (int i = 0; i < 2; ++i) {
      v1::GresDevice* gpu = hw->add_gres();
      gpu->set_index(i);
      gpu->set_name("gpu");
      gpu->add_files("/dev/nvidia" + std::to_string(i));
      gpu->set_count(1);
    }
  } else {
    hw->set_cpus(4);
    hw->set_sockets(1);
    hw->set_cores_per_socket(4);
    hw->set_threads_per_core(1);
    hw->set_real_memory_mb(4000);
  }
  return request;
}

// The state every input starts from: job 1 a running batch job, job 2 a
// running allocation (no script) with step 0, job 3 held.
void prepare(const std::string& db) {
  Core c(db);
  for (const char* node : {"n1", "n2"}) {
    v1::RegisterRequest request = registration(node);
    (void)c.must<v1::RegisterResponse>([&](auto reply) { c.core->registerNode(request, reply); });
  }
  auto submit = [&](v1::JobSpec spec) {
    v1::SubmitJobRequest request;
    *request.mutable_spec() = std::move(spec);
    (void)c.must<v1::SubmitJobResponse>([&](auto reply) { c.core->submitJob(request, kOwner, reply); });
    c.settle();
  };
  v1::JobSpec batch;
  batch.set_script("#!/bin/sh\nsleep 100\n");
  batch.set_gpus_per_node(1);
  batch.set_mem_per_cpu_mb(100);
  submit(batch);
  v1::JobSpec allocation;
  allocation.set_ntasks(2);
  submit(allocation);
  v1::JobSpec held = batch;
  held.set_hold(true);
  submit(held);
  v1::CreateStepRequest step;
  step.set_job_id(2);
  step.add_argv("hostname");
  (void)c.must<v1::CreateStepResponse>([&](auto reply) { c.core->createStep(step, kOwner, reply); });
  c.settle();
}

struct Handler {
  // Decodes `data` and starts the call; false when the bytes are not a
  // request of this handler (nothing was called).
  std::function<bool(Core&, const uint8_t*, size_t, const auth::Identity&,
                     std::function<void(bool ok, std::string why)>)>
      run;
  std::function<std::vector<std::string>()> seeds;
};

template <typename Request>
std::vector<std::string> serialized(std::initializer_list<std::function<void(Request&)>> makers) {
  std::vector<std::string> out;
  for (const auto& make : makers) {
    Request request;
    make(request);
    out.push_back(request.SerializeAsString());
  }
  return out;
}

// A handler whose request goes through checkRequest, as in the adapter.
template <typename Request, typename Response, typename Call>
Handler checked(Call call, std::function<std::vector<std::string>()> seeds) {
  return Handler{
      [call](Core& c, const uint8_t* data, size_t size, const auth::Identity& caller,
             std::function<void(bool, std::string)> done) {
        Request request;
        if (!request.ParseFromArray(data, static_cast<int>(size))) return false;
        if constexpr (requires { ctlrpc::checkRequest(request); }) {
          if (Status refused = ctlrpc::checkRequest(request); !refused) {
            done(false, refused.error());
            return true;
          }
        }
        call(c, std::move(request), caller, [done](Result<Response> answer) {
          done(answer.ok(), answer.ok() ? std::string() : answer.error());
        });
        return true;
      },
      std::move(seeds)};
}

// The accounting store the two accounting handlers read: made once per
// process beside the state database, holding a job with steps and an open
// event (it is only read, so no input can change it).
const ctlrpc::AccountingAccess& fuzzAccounting();

std::map<std::string, Handler> handlers() {
  using JobAction = core::ControllerCore::JobAction;
  auto jobAction = [](JobAction action) {
    return checked<v1::JobActionRequest, Ok>(
        [action](Core& c, v1::JobActionRequest r, const auth::Identity& who, auto reply) {
          c.core->jobAction(action, r.job_id(), r.array_tasks(), who, reply);
        },
        [] {
          return serialized<v1::JobActionRequest>({[](auto& r) { r.set_job_id(1); }, [](auto& r) { r.set_job_id(2); },
                                                   [](auto& r) { r.set_job_id(3); }});
        });
  };
  std::map<std::string, Handler> all;
  all["SubmitJob"] = checked<v1::SubmitJobRequest, v1::SubmitJobResponse>(
      [](Core& c, v1::SubmitJobRequest r, const auth::Identity& who, auto reply) { c.core->submitJob(r, who, reply); },
      [] {
        return serialized<v1::SubmitJobRequest>({
            [](auto& r) { r.mutable_spec()->set_script("#!/bin/sh\ntrue\n"); },
            [](auto& r) {
              auto* s = r.mutable_spec();
              s->set_script("#!/bin/sh\ntrue\n");
              s->set_ntasks(4);
              s->set_cpus_per_task(2);
              s->set_mem_per_cpu_mb(500);
              s->set_time_limit_minutes(30);
            },
            [](auto& r) {
              auto* s = r.mutable_spec();
              s->set_min_nodes(2);
              s->set_ntasks_per_node(1);
              s->set_gpus_per_task(1);
              s->set_partition("debug");
            },
            [](auto& r) {
              auto* s = r.mutable_spec();
              s->set_script("#!/bin/sh\ntrue\n");
              auto* gres = s->add_gres();
              gres->set_name("gpu");
              gres->set_count(2);
              s->add_gres_flags("enforce-binding");
              s->set_mem_per_gpu_mb(1000);
              r.set_test_only(true);
            },
            [](auto& r) {
              auto* s = r.mutable_spec();
              s->set_partition("long");
              s->set_time_limit_minutes(-1);
              s->set_exclusive(true);
            },
        });
      });
  all["CancelJob"] = checked<v1::CancelJobRequest, v1::CancelJobResponse>(
      [](Core& c, v1::CancelJobRequest r, const auth::Identity& who, auto reply) { c.core->cancelJob(r, who, reply); },
      [] {
        return serialized<v1::CancelJobRequest>({[](auto& r) { r.add_job_ids(1); },
                                                 [](auto& r) {
                                                   r.add_job_ids(2);
                                                   r.add_job_ids(3);
                                                   r.set_signal(10);
                                                 },
                                                 [](auto& r) { r.set_user("owner"); }});
      });
  all["ListJobs"] = checked<v1::ListJobsRequest, v1::ListJobsResponse>(
      [](Core& c, v1::ListJobsRequest r, const auth::Identity& who, auto reply) { c.core->listJobs(r, who, reply); },
      [] {
        return serialized<v1::ListJobsRequest>({[](auto& r) { r.add_job_ids(2); r.set_include_steps(true); },
                                                [](auto& r) { r.add_states(v1::RUNNING); r.set_user("owner"); }});
      });
  all["GetBatchScript"] = checked<v1::GetBatchScriptRequest, v1::GetBatchScriptResponse>(
      [](Core& c, v1::GetBatchScriptRequest r, const auth::Identity& who, auto reply) {
        c.core->getBatchScript(r, who, reply);
      },
      [] { return serialized<v1::GetBatchScriptRequest>({[](auto& r) { r.set_job_id(1); }}); });
  all["ListNodes"] = checked<v1::ListNodesRequest, v1::ListNodesResponse>(
      [](Core& c, v1::ListNodesRequest r, const auth::Identity& who, auto reply) { c.core->listNodes(r, who, reply); },
      [] { return serialized<v1::ListNodesRequest>({[](auto& r) { r.add_names("n1"); }}); });
  all["ListPartitions"] = checked<v1::ListPartitionsRequest, v1::ListPartitionsResponse>(
      [](Core& c, v1::ListPartitionsRequest r, const auth::Identity&, auto reply) { c.core->listPartitions(r, reply); },
      [] { return serialized<v1::ListPartitionsRequest>({[](auto& r) { r.add_names("debug"); }}); });
  all["GetConfig"] = checked<v1::GetConfigRequest, v1::GetConfigResponse>(
      [](Core& c, v1::GetConfigRequest, const auth::Identity& who, auto reply) { c.core->getConfig(who, reply); },
      [] { return serialized<v1::GetConfigRequest>({[](auto&) {}}); });
  all["UpdateNode"] = checked<v1::UpdateNodeRequest, v1::UpdateNodeResponse>(
      [](Core& c, v1::UpdateNodeRequest r, const auth::Identity& who, auto reply) { c.core->updateNode(r, who, reply); },
      [] {
        return serialized<v1::UpdateNodeRequest>({[](auto& r) {
                                                    r.set_node_names("n1");
                                                    r.set_state("DRAIN");
                                                    r.set_reason("fuzz");
                                                  },
                                                  [](auto& r) {
                                                    r.set_node_names("n[1-2]");
                                                    r.set_state("RESUME");
                                                  }});
      });
  all["UpdateTres"] = checked<v1::UpdateTresRequest, v1::UpdateTresResponse>(
      [](Core& c, v1::UpdateTresRequest r, const auth::Identity& who, auto reply) { c.core->updateTres(r, who, reply); },
      [] {
        return serialized<v1::UpdateTresRequest>(
            {[](auto& r) {
               for (const char* word : {"TresName=gres/gpu", "NodeName=n[1-2]", "Index=0", "Action=Drain", "Reason=f"})
                 r.add_words(word);
             },
             [](auto& r) {
               for (const char* word : {"TresName=cpu", "NodeName=n1", "Index=1", "Action=SetDrain", "Reason=f"})
                 r.add_words(word);
             },
             [](auto& r) {
               r.set_json(R"({"name": "mem", "nodes": "n2", "count": 512, "action": "drain", "reason": "f"})");
             },
             [](auto& r) {
               r.set_json(R"({"name": "gres/gpu", "nodes": "n1", "select_all": true, "action": "resume"})");
             }});
      });
  all["ListShares"] = checked<v1::ListSharesRequest, v1::ListSharesResponse>(
      [](Core& c, v1::ListSharesRequest r, const auth::Identity& who, auto reply) { c.core->listShares(r, who, reply); },
      [] { return serialized<v1::ListSharesRequest>({[](auto& r) { r.add_users("root"); }}); });
  all["ListDrainedTres"] = checked<v1::ListDrainedTresRequest, v1::ListDrainedTresResponse>(
      [](Core& c, v1::ListDrainedTresRequest r, const auth::Identity& who, auto reply) {
        c.core->listDrainedTres(r, who, reply);
      },
      [] { return serialized<v1::ListDrainedTresRequest>({[](auto& r) { r.set_node_names("n[1-2]"); }}); });
  all["ListAccountingJobs"] = checked<v1::ListAccountingJobsRequest, v1::ListAccountingJobsResponse>(
      [](Core& c, v1::ListAccountingJobsRequest r, const auth::Identity& who, auto reply) {
        reply(ctlrpc::listAccountingJobs(fuzzAccounting(), r, who, c.core->isAdministrator(who)));
      },
      [] {
        return serialized<v1::ListAccountingJobsRequest>({[](auto& r) {
                                                             auto* id = r.add_ids();
                                                             id->set_job_id(31);
                                                             id->set_has_step(true);
                                                             id->set_step_id("batch");
                                                           },
                                                           [](auto& r) {
                                                             r.add_uids(1000);
                                                             r.mutable_window()->set_start(100);
                                                             r.mutable_window()->set_end(5000);
                                                             r.add_states("COMPLETED");
                                                             r.set_node_list("n[1-2]");
                                                           }});
      });
  all["ListNodeEvents"] = checked<v1::ListNodeEventsRequest, v1::ListNodeEventsResponse>(
      [](Core&, v1::ListNodeEventsRequest r, const auth::Identity&, auto reply) {
        reply(ctlrpc::listNodeEvents(fuzzAccounting(), r));
      },
      [] {
        return serialized<v1::ListNodeEventsRequest>({[](auto& r) {
          r.set_nodes("n[1-2]");
          r.add_states("DRAIN");
          r.set_open_only(true);
        }});
      });
  all["SuspendJob"] = jobAction(JobAction::Suspend);
  all["ResumeJob"] = jobAction(JobAction::Resume);
  all["HoldJob"] = jobAction(JobAction::Hold);
  all["ReleaseJob"] = jobAction(JobAction::Release);
  all["RequeueJob"] = jobAction(JobAction::Requeue);
  all["UpdateJob"] = checked<v1::UpdateJobRequest, Ok>(
      [](Core& c, v1::UpdateJobRequest r, const auth::Identity& who, auto reply) { c.core->updateJob(r, who, reply); },
      [] {
        return serialized<v1::UpdateJobRequest>({[](auto& r) {
                                                   r.set_job_id(3);
                                                   r.set_time_limit_minutes(30);
                                                   r.set_partition("long");
                                                   r.set_num_nodes(1);
                                                 },
                                                 [](auto& r) {
                                                   r.set_job_id(1);
                                                   r.set_name("renamed");
                                                   r.set_tres_bind("gres/gpu:closest");
                                                 }});
      });
  all["CreateStep"] = checked<v1::CreateStepRequest, v1::CreateStepResponse>(
      [](Core& c, v1::CreateStepRequest r, const auth::Identity& who, auto reply) { c.core->createStep(r, who, reply); },
      [] {
        return serialized<v1::CreateStepRequest>({[](auto& r) {
                                                    r.set_job_id(2);
                                                    r.add_argv("hostname");
                                                  },
                                                  [](auto& r) {
                                                    r.set_job_id(2);
                                                    r.add_argv("sleep");
                                                    r.add_argv("1");
                                                    r.mutable_spec()->set_ntasks(1);
                                                    r.mutable_spec()->set_exclusive(true);
                                                    r.mutable_io()->set_addr("127.0.0.1");
                                                    r.mutable_io()->set_port(4000);
                                                  }});
      });
  all["GetStep"] = checked<v1::GetStepRequest, v1::GetStepResponse>(
      [](Core& c, v1::GetStepRequest r, const auth::Identity& who, auto reply) { c.core->getStep(r, who, reply); },
      [] {
        return serialized<v1::GetStepRequest>({[](auto& r) {
          r.set_job_id(2);
          r.set_step_id("0");
        }});
      });
  all["CompleteAllocation"] = checked<v1::CompleteAllocationRequest, v1::CompleteAllocationResponse>(
      [](Core& c, v1::CompleteAllocationRequest r, const auth::Identity& who, auto reply) {
        c.core->completeAllocation(r, who, reply);
      },
      [] { return serialized<v1::CompleteAllocationRequest>({[](auto& r) { r.set_job_id(2); }}); });
  all["Register"] = checked<v1::RegisterRequest, v1::RegisterResponse>(
      [](Core& c, v1::RegisterRequest r, const auth::Identity&, auto reply) { c.core->registerNode(r, reply); },
      [] { return std::vector<std::string>{registration("n1").SerializeAsString(), registration("n2").SerializeAsString()}; });
  all["Heartbeat"] = checked<v1::HeartbeatRequest, v1::HeartbeatResponse>(
      [](Core& c, v1::HeartbeatRequest r, const auth::Identity&, auto reply) { c.core->heartbeat(r, reply); },
      [] {
        return serialized<v1::HeartbeatRequest>({[](auto& r) {
          r.set_node_name("n1");
          auto* step = r.add_running();
          step->set_job_id(1);
          step->set_step_id("batch");
        }});
      });
  all["StepComplete"] = checked<v1::StepCompleteRequest, v1::StepCompleteResponse>(
      [](Core& c, v1::StepCompleteRequest r, const auth::Identity&, auto reply) { c.core->stepComplete(r, reply); },
      [] {
        return serialized<v1::StepCompleteRequest>({[](auto& r) {
                                                      r.set_node_name("n1");
                                                      r.set_job_id(1);
                                                      r.set_step_id("batch");
                                                    },
                                                    [](auto& r) {
                                                      r.set_node_name("n1");
                                                      r.set_job_id(2);
                                                      r.set_step_id("0");
                                                      r.set_term_signal(9);
                                                    }});
      });
  return all;
}

struct Process {
  fs::path dir;
  fs::path base;
  fs::path work;
  Handler handler;
};
Process* process = nullptr;

const ctlrpc::AccountingAccess& fuzzAccounting() {
  static std::unique_ptr<accounting::AccountingStore> owned;
  static const ctlrpc::AccountingAccess access = [] {
    // The SQLite backend itself: the fuzz build has no PostgreSQL client.
    auto sqlite = std::make_unique<accounting::SqliteAccountingStore>();
    if (!sqlite->open((process->dir / "accounting.db").string())) std::abort();
    owned = std::move(sqlite);
    accounting::AccountingStore& store = *owned;
    accounting::JobRecord job{.cluster = "fuzz", .jobId = 31, .name = "j", .user = "owner", .uid = 1000,
                              .submitTime = 100, .eligibleTime = 100, .startTime = 200, .endTime = 900,
                              .state = "COMPLETED", .nodeCount = 1, .nodeList = "n1"};
    accounting::JobRecord batch = job;
    batch.stepId = "batch";
    if (!store.appendJobs({job, batch})) std::abort();
    if (!store.appendEvents({accounting::NodeEvent{.cluster = "fuzz", .node = "n2", .startTime = 300,
                                                   .state = "DRAIN", .tres = "cpu=4", .tresReference = "cpu=1"}})) {
      std::abort();
    }
    store.flush();
    return ctlrpc::AccountingAccess{.store = &store, .cluster = "fuzz", .privateJobs = true};
  }();
  return access;
}

void removeFolder() {
  if (process != nullptr) fs::remove_all(process->dir);
}

void copyDatabase(const fs::path& from, const fs::path& to) {
  for (const char* suffix : {"", "-wal", "-shm"}) {
    fs::path source = from.string() + suffix;
    fs::path target = to.string() + suffix;
    fs::remove(target);
    if (fs::exists(source)) fs::copy_file(source, target);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  // Invalid UTF-8 is refused by the parser with a log line per input.
  google::protobuf::SetLogHandler([](google::protobuf::LogLevel, const char*, int, const std::string&) {});
  const char* name = std::getenv("GANTRY_FUZZ_HANDLER");
  auto all = handlers();
  auto found = name != nullptr ? all.find(name) : all.end();
  if (found == all.end()) {
    std::fprintf(stderr, "fuzz_core_rpc: set GANTRY_FUZZ_HANDLER to one of:");
    for (const auto& [handlerName, handler] : all) std::fprintf(stderr, " %s", handlerName.c_str());
    std::fprintf(stderr, "\n");
    std::exit(2);
  }
  if (const char* seeds = std::getenv("GANTRY_FUZZ_SEEDS")) {
    fs::create_directories(seeds);
    int i = 0;
    for (const auto& seed : found->second.seeds()) {
      std::ofstream(fs::path(seeds) / ("seed" + std::to_string(i++)), std::ios::binary) << seed;
    }
  }
  // tmpfs when there is one: the store fsyncs every transaction.
  fs::path root = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
  std::string pattern = (root / "gantry-fuzz-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("fuzz_core_rpc: mkdtemp");
    std::exit(2);
  }
  process = new Process{pattern, fs::path(pattern) / "base.db", fs::path(pattern) / "work.db", found->second};
  std::atexit(removeFolder);
  prepare(process->base.string());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return -1;
  copyDatabase(process->base, process->work);
  Core c(process->work.string());
  const auth::Identity& caller = size % 3 == 0 ? kRoot : (size % 3 == 1 ? kOwner : kStranger);
  std::string before = c.digest();
  std::optional<std::pair<bool, std::string>> answer;
  bool decoded = process->handler.run(c, data, size, caller,
                                      [&answer](bool ok, std::string why) { answer.emplace(ok, std::move(why)); });
  if (!decoded) return -1;  // not a request of this handler: not worth keeping
  for (int i = 0; i < kMaxPolls && !answer; ++i) {
    c.timers.runDue();
    c.io.poll();
    if (!answer) c.store.flush();
  }
  if (!answer) {
    std::fprintf(stderr, "fuzz_core_rpc: no answer after %d polls\n", kMaxPolls);
    __builtin_trap();
  }
  c.settle();
  if (!answer->first) {
    if (answer->second.empty()) {
      std::fprintf(stderr, "fuzz_core_rpc: an error without a message\n");
      __builtin_trap();
    }
    if (c.digest() != before) {
      std::fprintf(stderr, "fuzz_core_rpc: a refused request changed the state: %s\n", answer->second.c_str());
      __builtin_trap();
    }
  }
  return 0;
}
