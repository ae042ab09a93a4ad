// ControllerCore owns every piece of cluster state (jobs, nodes,
// partitions) and is its only writer. Every public method may be called from
// any thread: it posts the work onto the core's strand and reports through a
// callback, so no state is ever touched concurrently and no lock guards it.
//
// Nothing acknowledged is lost: a callback that reports success for a
// mutation runs only after the JobStore has made it durable. The strand never
// blocks: disk writes go through the store's writer thread, agent calls
// through the AgentGateway's threads.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/auth/identity.h"
#include "common/config/gantry_conf.h"
#include "common/util/clock.h"
#include "common/util/result.h"
#include "controller/core/agent_gateway.h"
#include "controller/select/cluster.h"
#include "controller/store/job_store.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::core {

struct CoreOptions {
  // Owned by the caller; the core reads it on its strand and replaces its
  // contents only in reconfigure().
  config::GantryConf* conf = nullptr;
  const Clock* clock = nullptr;
  store::JobStore* store = nullptr;
  AgentGateway* agents = nullptr;
  uint32_t slurmUserUid = 0;          // may act as administrator besides root
  int64_t keepFinishedSeconds = 300;  // MinJobAge: how long ended jobs stay listed
  std::chrono::milliseconds tick{500};
};

template <typename T>
using Reply = std::function<void(Result<T>)>;

class ControllerCore {
 public:
  ControllerCore(boost::asio::io_context& io, CoreOptions options);

  // Loads the store's snapshot and starts the periodic timer. Call once,
  // before any other method, from the thread that will run io.
  Status start();
  void stop();

  // Client API.
  void submitJob(v1::SubmitJobRequest request, auth::Identity caller,
                 Reply<v1::SubmitJobResponse> reply);
  void cancelJob(v1::CancelJobRequest request, auth::Identity caller,
                 Reply<v1::CancelJobResponse> reply);
  void listJobs(v1::ListJobsRequest request, Reply<v1::ListJobsResponse> reply);
  void listNodes(v1::ListNodesRequest request, Reply<v1::ListNodesResponse> reply);
  void listPartitions(v1::ListPartitionsRequest request, Reply<v1::ListPartitionsResponse> reply);
  void getConfig(Reply<v1::GetConfigResponse> reply);
  void updateNode(v1::UpdateNodeRequest request, auth::Identity caller,
                  Reply<v1::UpdateNodeResponse> reply);
  enum class JobAction { Suspend, Resume, Hold, Release };
  void jobAction(JobAction action, uint64_t jobId, auth::Identity caller, Reply<Ok> reply);

  // Agent API.
  void registerNode(v1::RegisterRequest request, Reply<v1::RegisterResponse> reply);
  void heartbeat(v1::HeartbeatRequest request, Reply<v1::HeartbeatResponse> reply);
  void stepComplete(v1::StepCompleteRequest request, Reply<v1::StepCompleteResponse> reply);

  bool isAdministrator(const auth::Identity& caller) const;

  // Runs one scheduling pass now and reports what it did (for benchmarks
  // and tests; the core also runs passes on its own).
  struct SchedulePassReport {
    size_t pending = 0;  // jobs the pass considered
    size_t started = 0;  // jobs it started
  };
  void schedulePass(Reply<SchedulePassReport> reply);

  // Applies a freshly loaded gantry.conf (reconfigure.cpp): partitions,
  // limits and node definitions change in place; new nodes are added.
  // Refused, keeping the running configuration, when a node would disappear
  // or a node in use would lose the CPUs or memory its jobs hold.
  void reconfigure(config::GantryConf fresh, Reply<Ok> reply);

 private:
  struct JobEntry {
    v1::Job job;
    select::Allocation allocation;  // empty unless resources are held
    bool holdsResources = false;
    bool launchInFlight = false;
  };
  struct NodeEntry {
    config::NodeConf conf;
    int selectIndex = -1;
    bool registered = false;
    bool notResponding = false;
    int64_t lastHeartbeat = 0;
    std::string addr;
    int port = 0;
    std::string adminState;  // "", "DRAIN", "DOWN"
    std::string reason, reasonUser;
    int64_t reasonTime = 0;
    std::vector<std::string> registrationErrors;  // drain reasons from the last registration
    v1::NodeHardware hardware;
    int allocCpus = 0;
    uint64_t allocMemoryMb = 0;
    std::set<uint64_t> jobs;
  };

  // Runs f on the strand.
  template <typename F>
  void onStrand(F&& f) {
    boost::asio::post(strand_, std::forward<F>(f));
  }

  int64_t now() const;
  bool isTerminal(v1::JobState state) const;
  Result<select::Request> toSelectRequest(const v1::JobSpec& spec) const;
  // sbatch --test-only: where and when the job would start; changes nothing.
  v1::SubmitJobResponse testOnly(const select::Request& request, const select::PartitionView& view,
                                 const config::PartitionConf& partition);
  Result<const config::PartitionConf*> partitionFor(const v1::JobSpec& spec) const;
  select::PartitionView partitionView(const config::PartitionConf& partition) const;
  Result<int64_t> effectiveTimeLimit(const v1::JobSpec& spec,
                                     const config::PartitionConf& partition) const;
  bool nodeSchedulable(const NodeEntry& node) const;
  void refreshSelectAvailability(NodeEntry& node);
  std::string nodeStateText(const NodeEntry& node) const;
  select::NodeInfo selectInfoFor(const NodeEntry& node) const;

  void requestSchedule();
  void schedule();
  void startJob(JobEntry& entry, select::Allocation allocation);
  void launchBatch(uint64_t jobId);
  // The GPUs (whole, or shares of one) a step on `node` gets from `grant`.
  void addStepGpus(const NodeEntry& node, const select::NodeGrant& grant, v1::LaunchStepRequest& request) const;
  // What every step on a node carries about the whole job there (for the
  // per-job resctrl group): whole-node ownership and the job's GPUs.
  void describeJobOnNode(const JobEntry& entry, int selectIndex, v1::LaunchStepRequest& request) const;
  // Ends the job: state, reason, exit; its resources are released and its
  // nodes told (they end leftover steps and run the Epilog).
  void endJob(JobEntry& entry, v1::JobState state, const std::string& reason, int exitCode, int signal);
  void requeueJob(JobEntry& entry, const std::string& reason);
  void releaseResources(JobEntry& entry);
  void drainNode(NodeEntry& node, const std::string& reason);
  // Keeps the highest device memory use a step reports, per node and region.
  void recordDmemPeaks(const v1::StepCompleteRequest& request);
  void holdResources(JobEntry& entry);
  void persist(const JobEntry& entry, std::function<void(const Status&)> done = {});
  AgentAddress addressOf(const NodeEntry& node) const;
  NodeEntry* findNode(const std::string& name);
  void tick();
  void checkTimeLimits();
  void checkHeartbeats();
  void forgetOldJobs();
  v1::Node nodeView(const NodeEntry& node) const;

  boost::asio::io_context& io_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::steady_timer timer_;
  CoreOptions options_;
  config::GantryConf& conf_;
  select::Cluster cluster_;
  std::map<uint64_t, JobEntry> jobs_;
  std::vector<NodeEntry> nodes_;
  std::map<std::string, size_t> nodeIndex_;
  uint64_t nextJobId_ = 1;
  bool scheduleRequested_ = false;
  bool stopped_ = false;
  int64_t startTime_ = 0;

  // ---------------------------------------------------------------- steps
  // Interactive steps (srun inside an allocation), in step_manager.cpp.
 public:
  // Places a step inside a running job with Cluster::selectStep and starts
  // it on every node of the step. A suspended job answers "Job step creation
  // temporarily disabled, retrying"; a step whose --exclusive resources are
  // held by other steps answers "Requested nodes are busy": srun retries both.
  void createStep(v1::CreateStepRequest request, auth::Identity caller,
                  Reply<v1::CreateStepResponse> reply);
  void getStep(v1::GetStepRequest request, Reply<v1::GetStepResponse> reply);
  // Ends a job that has no batch script (salloc, srun outside a job).
  void completeAllocation(v1::CompleteAllocationRequest request, auth::Identity caller,
                          Reply<v1::CompleteAllocationResponse> reply);

 private:
  struct StepEntry {
    select::Allocation allocation;
    std::set<std::string> nodesLeft;  // nodes that have not reported the end yet
    int exitCode = 0;
    std::string message;
    bool ended() const { return nodesLeft.empty(); }
  };
  struct JobSteps {
    uint32_t nextStepId = 0;
    std::map<uint32_t, StepEntry> steps;
  };
  void launchInteractiveStep(uint64_t jobId, uint32_t stepId, const v1::CreateStepRequest& request);
  // With PrologFlags=Contain: a `<job>.extern` step on every node of the
  // job, holding its confinement until the job ends. Hook of startJob.
  void launchExternSteps(uint64_t jobId);
  void stepEndedOnNode(uint64_t jobId, uint32_t stepId, const std::string& node, int exitCode,
                       const std::string& message);
  // Hook of stepComplete for numbered steps; true when it handled the report.
  bool numberedStepComplete(const v1::StepCompleteRequest& request);
  // Hook of endJob and requeueJob: the job's steps end with it.
  void forgetSteps(uint64_t jobId) { steps_.erase(jobId); }
  std::map<uint64_t, JobSteps> steps_;
  // ---------------------------------------------------------------- end of steps
};

}  // namespace gantry::core
