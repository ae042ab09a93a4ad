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
  const config::GantryConf* conf = nullptr;
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
  void onStrand(F&& f);

  int64_t now() const;
  bool isTerminal(v1::JobState state) const;
  Result<select::Request> toSelectRequest(const v1::JobSpec& spec) const;
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
  void endJob(JobEntry& entry, v1::JobState state, const std::string& reason, int exitCode,
              int signal, bool terminateOnNodes);
  void requeueJob(JobEntry& entry, const std::string& reason);
  void releaseResources(JobEntry& entry);
  void drainNode(NodeEntry& node, const std::string& reason);
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
  const config::GantryConf& conf_;
  select::Cluster cluster_;
  std::map<uint64_t, JobEntry> jobs_;
  std::vector<NodeEntry> nodes_;
  std::map<std::string, size_t> nodeIndex_;
  uint64_t nextJobId_ = 1;
  bool scheduleRequested_ = false;
  bool stopped_ = false;
  int64_t startTime_ = 0;
};

}  // namespace gantry::core
