// The subcommands end to end against an in-process fake controller: what
// they send, what they print, and their exit status.
#include <catch2/catch.hpp>

#include <grpcpp/grpcpp.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/controller_client.h"
#include "cli/subcommands.h"
#include "common/auth/identity.h"
#include <nlohmann/json.hpp>

#include "cli_fixtures.h"
#include "gantry/v1/controller.grpc.pb.h"

using namespace gantry::cli;
using namespace cli_fixtures;

namespace {

// Answers from the shared fixtures and remembers what it was asked.
class FakeController final : public gantry::v1::Controller::Service {
 public:
  gantry::v1::SubmitJobRequest lastSubmit;
  gantry::v1::CancelJobRequest lastCancel;
  gantry::v1::UpdateNodeRequest lastUpdate;
  gantry::v1::ListJobsRequest lastListJobs;
  int listJobsCalls = 0;
  std::vector<std::string> actions;

  grpc::Status SubmitJob(grpc::ServerContext*, const gantry::v1::SubmitJobRequest* request,
                         gantry::v1::SubmitJobResponse* response) override {
    lastSubmit = *request;
    response->set_job_id(42);
    if (request->test_only()) response->set_test_only_result("Job 42 to start at now on gpu1");
    return grpc::Status::OK;
  }
  grpc::Status CancelJob(grpc::ServerContext*, const gantry::v1::CancelJobRequest* request,
                         gantry::v1::CancelJobResponse* response) override {
    lastCancel = *request;
    for (uint64_t id : request->job_ids()) {
      if (id == 99) response->add_errors("Kill job error on job id 99: Invalid job id specified");
    }
    return grpc::Status::OK;
  }
  grpc::Status ListJobs(grpc::ServerContext*, const gantry::v1::ListJobsRequest* request,
                        gantry::v1::ListJobsResponse* response) override {
    lastListJobs = *request;
    ++listJobsCalls;
    // Steps only when asked for, as the controller answers.
    auto running = request->include_steps() ? runningGpuJobWithSteps() : runningGpuJob();
    for (const auto& job : {running, pendingJob()}) {
      bool wanted = request->job_ids().empty();
      for (uint64_t id : request->job_ids()) wanted = wanted || id == job.job_id();
      if (wanted) *response->add_jobs() = job;
    }
    return grpc::Status::OK;
  }
  grpc::Status ListNodes(grpc::ServerContext*, const gantry::v1::ListNodesRequest* request,
                         gantry::v1::ListNodesResponse* response) override {
    for (const auto& node : clusterNodes()) {
      bool wanted = request->names().empty();
      for (const auto& name : request->names()) wanted = wanted || name == node.name();
      if (wanted) *response->add_nodes() = node;
    }
    return grpc::Status::OK;
  }
  grpc::Status ListPartitions(grpc::ServerContext*, const gantry::v1::ListPartitionsRequest* request,
                              gantry::v1::ListPartitionsResponse* response) override {
    for (const auto& partition : clusterPartitions()) {
      bool wanted = request->names().empty();
      for (const auto& name : request->names()) wanted = wanted || name == partition.name();
      if (wanted) *response->add_partitions() = partition;
    }
    return grpc::Status::OK;
  }
  grpc::Status GetConfig(grpc::ServerContext*, const gantry::v1::GetConfigRequest*,
                         gantry::v1::GetConfigResponse* response) override {
    auto* entry = response->add_entries();
    entry->set_key("SchedulerType");
    entry->set_value("sched/gang");
    return grpc::Status::OK;
  }
  grpc::Status UpdateNode(grpc::ServerContext*, const gantry::v1::UpdateNodeRequest* request,
                          gantry::v1::UpdateNodeResponse* response) override {
    lastUpdate = *request;
    for (const auto& line : leftDrained) response->add_left_drained(line);
    return grpc::Status::OK;
  }
  // Answers tresRefusal when set, else leftDrained.
  grpc::Status UpdateTres(grpc::ServerContext*, const gantry::v1::UpdateTresRequest* request,
                          gantry::v1::UpdateTresResponse* response) override {
    ++updateTresCalls;
    lastUpdateTres = *request;
    if (!tresRefusal.error_message().empty()) return tresRefusal;
    for (const auto& line : leftDrained) response->add_left_drained(line);
    return grpc::Status::OK;
  }
  grpc::Status ListDrainedTres(grpc::ServerContext*, const gantry::v1::ListDrainedTresRequest* request,
                               gantry::v1::ListDrainedTresResponse* response) override {
    lastListDrained = *request;
    response->set_listing(drainedListing);
    return grpc::Status::OK;
  }
  gantry::v1::UpdateTresRequest lastUpdateTres;
  int updateTresCalls = 0;
  grpc::Status tresRefusal;
  std::vector<std::string> leftDrained;
  gantry::v1::ListDrainedTresRequest lastListDrained;
  std::string drainedListing;
  grpc::Status SuspendJob(grpc::ServerContext*, const gantry::v1::JobActionRequest* request,
                          gantry::v1::JobActionResponse*) override {
    return act("suspend", request->job_id());
  }
  grpc::Status ResumeJob(grpc::ServerContext*, const gantry::v1::JobActionRequest* request,
                         gantry::v1::JobActionResponse*) override {
    return act("resume", request->job_id());
  }
  grpc::Status HoldJob(grpc::ServerContext*, const gantry::v1::JobActionRequest* request,
                       gantry::v1::JobActionResponse*) override {
    return act("hold", request->job_id());
  }
  grpc::Status ReleaseJob(grpc::ServerContext*, const gantry::v1::JobActionRequest* request,
                          gantry::v1::JobActionResponse*) override {
    return act("release", request->job_id());
  }
  grpc::Status RequeueJob(grpc::ServerContext*, const gantry::v1::JobActionRequest* request,
                          gantry::v1::JobActionResponse*) override {
    return act("requeue", request->job_id());
  }
  // Answers with reconfigureRefusal when set, else with reconfigureNodeErrors.
  grpc::Status Reconfigure(grpc::ServerContext*, const gantry::v1::ReconfigureRequest*,
                           gantry::v1::ReconfigureResponse* response) override {
    ++reconfigureCalls;
    if (!reconfigureRefusal.error_message().empty()) return reconfigureRefusal;
    for (const auto& line : reconfigureNodeErrors) response->add_node_errors(line);
    return grpc::Status::OK;
  }
  int reconfigureCalls = 0;
  grpc::Status reconfigureRefusal;
  grpc::Status PingController(grpc::ServerContext*, const gantry::v1::PingControllerRequest*,
                              gantry::v1::PingControllerResponse*) override {
    ++pings;
    return grpc::Status::OK;
  }
  // Answers shutdownRefusal when set.
  grpc::Status Shutdown(grpc::ServerContext*, const gantry::v1::ShutdownRequest*,
                        gantry::v1::ShutdownResponse*) override {
    ++shutdowns;
    return shutdownRefusal;
  }
  // Refuses job 404 as the controller does an unknown job.
  grpc::Status UpdateJob(grpc::ServerContext*, const gantry::v1::UpdateJobRequest* request,
                         gantry::v1::UpdateJobResponse*) override {
    lastUpdateJob = *request;
    if (request->job_id() == 404) return grpc::Status(grpc::StatusCode::NOT_FOUND, "Invalid job id specified");
    return grpc::Status::OK;
  }
  gantry::v1::UpdateJobRequest lastUpdateJob;
  int pings = 0;
  int shutdowns = 0;
  grpc::Status shutdownRefusal;
  std::vector<std::string> reconfigureNodeErrors;

 private:
  grpc::Status act(const std::string& what, uint64_t id) {
    if (id == 404) return grpc::Status(grpc::StatusCode::NOT_FOUND, "Invalid job id specified");
    actions.push_back(what + " " + std::to_string(id));
    return grpc::Status::OK;
  }
};

// A fake controller on a free loopback port and a gantry.conf pointing at it.
class Cluster {
 public:
  Cluster() {
    static std::atomic<int> counter{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("gantry-cli-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(dir_);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&controller);
    server_ = builder.BuildAndStart();
    std::ofstream(dir_ / "gantry.conf")
        << "ClusterName=test\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=" << port
        << "\nAuthType=auth/none\nNodeName=gpu[1-2] CPUs=8\nPartitionName=gpu Nodes=gpu[1-2] "
           "Default=YES\n";
    std::ofstream(dir_ / "job.sh") << "#!/bin/sh\n#SBATCH -N 2\n#SBATCH --gpus-per-node=2\nhostname\n";
  }
  ~Cluster() {
    server_->Shutdown();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string confDir() const { return dir_.string(); }
  std::string script() const { return (dir_ / "job.sh").string(); }

  FakeController controller;

 private:
  std::filesystem::path dir_;
  std::unique_ptr<grpc::Server> server_;
};

struct Outcome {
  int status = 0;
  std::string out;
  std::string err;
};

// Runs a subcommand with stdout and stderr captured.
Outcome run(int (*subcommand)(const std::vector<std::string>&), std::vector<std::string> args,
            const Cluster& cluster) {
  // First, because sbatch stops reading options at the script's name.
  args.insert(args.begin(), {"--conf-dir", cluster.confDir()});
  std::ostringstream out, err;
  auto* oldOut = std::cout.rdbuf(out.rdbuf());
  auto* oldErr = std::cerr.rdbuf(err.rdbuf());
  int status = subcommand(args);
  std::cout.rdbuf(oldOut);
  std::cerr.rdbuf(oldErr);
  return Outcome{status, out.str(), err.str()};
}

}  // namespace

TEST_CASE("sbatch submits a script with its directives", "[cli][commands]") {
  Cluster cluster;
  auto outcome = run(runSbatch, {"-p", "gpu", cluster.script()}, cluster);
  CHECK(outcome.status == 0);
  CHECK(outcome.out == "Submitted batch job 42\n");
  const auto& spec = cluster.controller.lastSubmit.spec();
  CHECK(spec.min_nodes() == 2);
  CHECK(spec.gpus_per_node() == 2);
  CHECK(spec.partition() == "gpu");
  CHECK(spec.name() == "job.sh");
  CHECK_FALSE(spec.environment().empty());
  CHECK_FALSE(spec.work_dir().empty());
}

TEST_CASE("sbatch --parsable and --test-only", "[cli][commands]") {
  Cluster cluster;
  auto parsable = run(runSbatch, {"--parsable", "--wrap", "true"}, cluster);
  CHECK(parsable.status == 0);
  CHECK(parsable.out == "42\n");
  auto test = run(runSbatch, {"--test-only", "--wrap", "true"}, cluster);
  CHECK(test.status == 0);
  CHECK(cluster.controller.lastSubmit.test_only());
  CHECK(test.err == "sbatch: Job 42 to start at now on gpu1\n");
}

TEST_CASE("squeue prints the default columns and filters", "[cli][commands]") {
  Cluster cluster;
  auto all = run(runSqueue, {}, cluster);
  CHECK(all.status == 0);
  CHECK_THAT(all.out, Catch::StartsWith("             JOBID PARTITION"));
  CHECK_THAT(all.out, Catch::Contains("(Resources)"));
  auto filtered = run(runSqueue, {"-h", "-p", "cpu", "-o", "%i %t", "-t", "PD,R", "-u", "bob"},
                      cluster);
  CHECK(filtered.status == 0);
  CHECK(filtered.out == "13 PD\n");
  CHECK(cluster.controller.lastListJobs.user() == "bob");
  CHECK(cluster.controller.lastListJobs.states_size() == 2);
  auto json = run(runSqueue, {"--json", "-j", "12"}, cluster);
  CHECK_THAT(json.out, Catch::Contains("\"job_id\": 12"));
  auto bad = run(runSqueue, {"-t", "sleepy"}, cluster);
  CHECK(bad.status == 1);
  CHECK(bad.err == "squeue: error: -t/--states: invalid job state 'sleepy'\n");
}

TEST_CASE("squeue -n, -A and -w narrow the listing; a bad host list is refused", "[cli][commands]") {
  Cluster cluster;
  CHECK(run(runSqueue, {"-h", "-o", "%i", "-n", "train,other"}, cluster).out == "12\n");
  CHECK(run(runSqueue, {"-h", "-o", "%i", "--name=a-very-long-job-name"}, cluster).out == "13\n");
  CHECK(run(runSqueue, {"-h", "-o", "%i", "-A", "nobody"}, cluster).out == "");
  // Only jobs holding one of the nodes: the pending job holds none.
  CHECK(run(runSqueue, {"-h", "-o", "%i", "-w", "gpu2"}, cluster).out == "12\n");
  CHECK(run(runSqueue, {"-h", "-o", "%i", "--nodelist=gpu[3-4]"}, cluster).out == "");
  auto bad = run(runSqueue, {"-w", "gpu[2-"}, cluster);
  CHECK(bad.status == 1);
  CHECK_THAT(bad.err, Catch::StartsWith("squeue: error: -w/--nodelist: "));
}

TEST_CASE("squeue -l prints the date, then state and time limit columns", "[cli][commands]") {
  Cluster cluster;
  auto out = run(runSqueue, {"-l"}, cluster).out;
  auto firstLine = out.substr(0, out.find('\n'));
  // "Thu Dec 03 12:34:56 2026"
  CHECK(firstLine.size() == 24);
  CHECK(firstLine[3] == ' ');
  CHECK(firstLine[13] == ':');
  CHECK_THAT(out, Catch::Contains("\n             JOBID PARTITION     NAME     USER    STATE       TIME TIME_LIMI  NODES NODELIST(REASON)\n"));
  CHECK_THAT(out, Catch::Contains(" RUNNING ") && Catch::Contains("1:30:00"));
  auto bare = run(runSqueue, {"-l", "-h"}, cluster).out;
  CHECK_THAT(bare, Catch::StartsWith("                12 "));  // no date without a header
}

TEST_CASE("squeue --start asks for pending jobs and shows their start column", "[cli][commands]") {
  Cluster cluster;
  auto out = run(runSqueue, {"--start"}, cluster);
  CHECK(out.status == 0);
  REQUIRE(cluster.controller.lastListJobs.states_size() == 1);
  CHECK(cluster.controller.lastListJobs.states(0) == gantry::v1::PENDING);
  CHECK_THAT(out.out, Catch::StartsWith("             JOBID PARTITION     NAME     USER ST          START_TIME  NODES SCHEDNODES           NODELIST(REASON)\n"));
  // -t names the states itself.
  run(runSqueue, {"--start", "-t", "R"}, cluster);
  CHECK(cluster.controller.lastListJobs.states(0) == gantry::v1::RUNNING);
  CHECK(run(runSqueue, {"-r", "-h", "-o", "%i"}, cluster).status == 0);
}

TEST_CASE("squeue asks for TRES only when a column shows them", "[cli][commands]") {
  Cluster cluster;
  run(runSqueue, {"-h", "-o", "%i"}, cluster);
  CHECK_FALSE(cluster.controller.lastListJobs.include_tres());
  run(runSqueue, {"-h", "-O", "JobID,tres-alloc"}, cluster);
  CHECK(cluster.controller.lastListJobs.include_tres());
}

TEST_CASE("sinfo views", "[cli][commands]") {
  Cluster cluster;
  auto summary = run(runSinfo, {}, cluster);
  CHECK(summary.status == 0);
  CHECK_THAT(summary.out, Catch::StartsWith("PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"));
  auto reasons = run(runSinfo, {"-R", "-h"}, cluster);
  CHECK_THAT(reasons.out, Catch::StartsWith("bad dimm"));
  auto gres = run(runSinfo, {"-N", "-O", "NodeList:6,GresUsed:0", "-p", "gpu"}, cluster);
  CHECK_THAT(gres.out, Catch::Contains("gpu1  gpu:a100:2(IDX:0-1)"));
  auto json = run(runSinfo, {"--json"}, cluster);
  CHECK_THAT(json.out, Catch::Contains("\"partitions\"") && Catch::Contains("\"nodes\""));
}

TEST_CASE("scancel reports each failed job and exits 1", "[cli][commands]") {
  Cluster cluster;
  auto ok = run(runScancel, {"12", "-s", "USR1"}, cluster);
  CHECK(ok.status == 0);
  CHECK(cluster.controller.lastCancel.signal() == 10);
  auto failed = run(runScancel, {"12", "99"}, cluster);
  CHECK(failed.status == 1);
  CHECK(failed.err == "scancel: error: Kill job error on job id 99: Invalid job id specified\n");
  auto byUser = run(runScancel, {"-u", "bob"}, cluster);
  CHECK(byUser.status == 0);
  CHECK(cluster.controller.lastCancel.user() == "bob");
  auto none = run(runScancel, {}, cluster);
  CHECK(none.status == 1);
  auto badSignal = run(runScancel, {"12", "-s", "WIBBLE"}, cluster);
  CHECK_THAT(badSignal.err, Catch::Contains("-s/--signal: invalid signal 'WIBBLE'"));
}

TEST_CASE("scancel takes steps and comma lists and says what it sends with -v", "[cli][commands]") {
  Cluster cluster;
  auto signalled = run(runScancel, {"-s", "HUP", "12.3,13", "--verbose"}, cluster);
  CHECK(signalled.status == 0);
  const auto& sent = cluster.controller.lastCancel;
  REQUIRE(sent.steps_size() == 1);
  CHECK(sent.steps(0).job_id() == 12);
  CHECK(sent.steps(0).step_id() == 3);
  CHECK(std::vector<uint64_t>(sent.job_ids().begin(), sent.job_ids().end()) == std::vector<uint64_t>{13});
  CHECK(signalled.err == "scancel: Signal 1 to step 12.3\nscancel: Signal 1 to job 13\n");
  auto cancelled = run(runScancel, {"-v", "12"}, cluster);
  CHECK(cancelled.err == "scancel: Terminating job 12\n");
  CHECK(run(runScancel, {"12"}, cluster).err.empty());  // quiet without -v
  for (const char* bad : {"12.x", "12.", ".3", "0", "12,,x"}) {
    INFO(bad);
    auto refused = run(runScancel, {bad}, cluster);
    CHECK(refused.status == 1);
    CHECK_THAT(refused.err, Catch::Contains("Invalid job id "));
  }
}

TEST_CASE("scontrol show, update and job actions", "[cli][commands]") {
  Cluster cluster;
  auto job = run(runScontrol, {"show", "job", "12", "-d"}, cluster);
  CHECK(job.status == 0);
  CHECK_THAT(job.out, Catch::StartsWith("JobId=12 JobName=train\n"));
  CHECK_THAT(job.out, Catch::Contains("GRES=gpu:a100:2(IDX:0-1)"));
  auto missing = run(runScontrol, {"show", "job", "77"}, cluster);
  CHECK(missing.status == 1);
  CHECK_THAT(missing.err, Catch::Contains("Invalid job id specified"));
  auto nodes = run(runScontrol, {"show", "node", "gpu[1-2]"}, cluster);
  CHECK_THAT(nodes.out, Catch::Contains("NodeName=gpu1 ") && Catch::Contains("\n\nNodeName=gpu2 "));
  auto partition = run(runScontrol, {"show", "partition", "gpu", "--json"}, cluster);
  CHECK_THAT(partition.out, Catch::Contains("\"over_subscribe\": \"FORCE:4\""));
  auto config = run(runScontrol, {"show", "config"}, cluster);
  CHECK_THAT(config.out, Catch::Contains("SchedulerType           = sched/gang\n"));

  auto update = run(runScontrol, {"update", "NodeName=gpu1", "State=DRAIN", "Reason=bad gpu"}, cluster);
  CHECK(update.status == 0);
  CHECK(cluster.controller.lastUpdate.reason() == "bad gpu");

  CHECK(run(runScontrol, {"suspend", "12"}, cluster).status == 0);
  CHECK(run(runScontrol, {"resume", "12"}, cluster).status == 0);
  CHECK(run(runScontrol, {"hold", "13"}, cluster).status == 0);
  CHECK(run(runScontrol, {"release", "13"}, cluster).status == 0);
  CHECK(cluster.controller.actions ==
        std::vector<std::string>{"suspend 12", "resume 12", "hold 13", "release 13"});
  auto refused = run(runScontrol, {"suspend", "404"}, cluster);
  CHECK(refused.status == 1);
  CHECK(refused.err == "Invalid job id specified for job 404\n");
  auto unknown = run(runScontrol, {"frobnicate"}, cluster);
  CHECK(unknown.status == 1);
  CHECK_THAT(unknown.err, Catch::Contains("unknown command 'frobnicate'"));
}

TEST_CASE("squeue --me asks for the caller's jobs", "[cli][commands]") {
  Cluster cluster;
  auto mine = run(runSqueue, {"--me", "-h"}, cluster);
  CHECK(mine.status == 0);
  CHECK(cluster.controller.lastListJobs.user() == gantry::auth::userName(getuid()));
  auto both = run(runSqueue, {"--me", "-u", "bob"}, cluster);
  CHECK(both.status == 1);
  CHECK_THAT(both.err, Catch::Contains("--me and -u/--user cannot be combined"));
}

TEST_CASE("a failed call keeps the kind the controller answered", "[cli][commands][errors]") {
  Cluster cluster;
  auto client = ControllerClient::connect(cluster.confDir());
  REQUIRE(client.ok());
  gantry::v1::JobActionRequest request;
  request.set_job_id(404);
  auto refused = client->call<gantry::v1::JobActionResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) { return stub.HoldJob(context, request, out); });
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.errorCode() == gantry::ErrorCode::NotFound);
  CHECK(refused.error() == "Invalid job id specified");
}

TEST_CASE("a controller that cannot be reached is Unavailable", "[cli][commands][errors]") {
  // A port the kernel handed out and that nothing listens on.
  int probe = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(probe >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  REQUIRE(::bind(probe, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  REQUIRE(::getsockname(probe, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  const int port = ntohs(address.sin_port);
  auto dir = std::filesystem::temp_directory_path() / ("gantry-cli-unreachable-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "gantry.conf") << "ClusterName=test\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=" << port
                                     << "\nAuthType=auth/none\nNodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n";
  auto client = ControllerClient::connect(dir.string());
  REQUIRE(client.ok());
  auto failed = client->call<gantry::v1::GetConfigResponse>([](auto& stub, grpc::ClientContext* context, auto* out) {
    return stub.GetConfig(context, gantry::v1::GetConfigRequest{}, out);
  });
  std::filesystem::remove_all(dir);
  ::close(probe);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.errorCode() == gantry::ErrorCode::Unavailable);
  CHECK_THAT(failed.error(), Catch::StartsWith("cannot reach controller at 127.0.0.1:" + std::to_string(port) + ": "));
}

TEST_CASE("plain squeue does not ask for steps", "[cli][commands][steps]") {
  Cluster cluster;
  auto jobs = run(runSqueue, {"-h"}, cluster);
  CHECK(jobs.status == 0);
  CHECK_FALSE(cluster.controller.lastListJobs.include_steps());
  CHECK(cluster.controller.lastListJobs.states_size() == 0);
  auto json = run(runSqueue, {"--json"}, cluster);
  CHECK_FALSE(cluster.controller.lastListJobs.include_steps());
  CHECK_THAT(json.out, !Catch::Contains("\"steps\": [\n"));
}

TEST_CASE("squeue -s lists running steps of running jobs", "[cli][commands][steps]") {
  Cluster cluster;
  auto steps = run(runSqueue, {"-s"}, cluster);
  CHECK(steps.status == 0);
  CHECK(steps.err.empty());
  const auto& asked = cluster.controller.lastListJobs;
  CHECK(asked.include_steps());
  CHECK(std::vector<int>(asked.states().begin(), asked.states().end()) ==
        std::vector<int>{gantry::v1::RUNNING, gantry::v1::SUSPENDED});
  std::vector<std::string> lines;
  std::istringstream in(steps.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "         STEPID     NAME PARTITION     USER      TIME NODELIST");
  CHECK_THAT(lines[1], Catch::StartsWith("           12.0 train.py       gpu    alice "));
  CHECK_THAT(lines[1], Catch::EndsWith(" gpu[1-2]"));
  CHECK_THAT(lines[2], Catch::StartsWith("           12.2 nvidia-s       gpu    alice "));

  auto formatted = run(runSqueue, {"--steps", "-h", "-o", "%i|%j|%N|%A"}, cluster);
  CHECK(formatted.out == "12.0|train.py|gpu[1-2]|4\n12.2|nvidia-smi|gpu2|1\n");
  auto longFormat = run(runSqueue, {"-s", "-h", "-O", "StepId:6,StepState:0"}, cluster);
  CHECK(longFormat.out == "12.0  RUNNING\n12.2  RUNNING\n");
}

TEST_CASE("squeue -s with a step list, -j and -u", "[cli][commands][steps]") {
  Cluster cluster;
  auto one = run(runSqueue, {"--steps=12.2", "-h", "-o", "%i %j"}, cluster);
  CHECK(one.status == 0);
  CHECK(one.out == "12.2 nvidia-smi\n");
  CHECK(std::vector<uint64_t>(cluster.controller.lastListJobs.job_ids().begin(),
                              cluster.controller.lastListJobs.job_ids().end()) ==
        std::vector<uint64_t>{12});
  auto separate = run(runSqueue, {"-s", "12.0,12.1", "-h", "-o", "%i"}, cluster);
  CHECK(separate.out == "12.0\n");  // 12.1 ended
  auto attached = run(runSqueue, {"-s12.2", "-h", "-o", "%i"}, cluster);
  CHECK(attached.out == "12.2\n");
  auto byJob = run(runSqueue, {"-s", "-j", "12", "-h", "-o", "%i"}, cluster);
  CHECK(byJob.out == "12.0\n12.2\n");
  auto otherJob = run(runSqueue, {"-s", "-j", "13", "-h"}, cluster);
  CHECK(otherJob.status == 0);
  CHECK(otherJob.out.empty());
  auto otherUser = run(runSqueue, {"-s", "-u", "bob"}, cluster);
  CHECK(otherUser.out == "         STEPID     NAME PARTITION     USER      TIME NODELIST\n");
  CHECK(cluster.controller.lastListJobs.user() == "bob");
  auto json = run(runSqueue, {"-s", "--json"}, cluster);
  CHECK_THAT(json.out, Catch::Contains("\"steps\": [") && Catch::Contains("\"id\": \"12.2\""));
  CHECK_THAT(json.out, !Catch::Contains("\"id\": \"12.1\""));
}

TEST_CASE("squeue -s refuses bad step ids and job-only options", "[cli][commands][steps]") {
  Cluster cluster;
  int callsBefore = cluster.controller.listJobsCalls;
  auto badId = run(runSqueue, {"--steps=12.x"}, cluster);
  CHECK(badId.status == 1);
  CHECK(badId.err == "squeue: error: -s/--steps: invalid job step id '12.x' (expected <jobid>.<stepid>)\n");
  auto badCode = run(runSqueue, {"-s", "-o", "%i %R"}, cluster);
  CHECK(badCode.status == 1);
  CHECK_THAT(badCode.err, Catch::Contains("-o/--format: unknown field code '%R'"));
  auto states = run(runSqueue, {"-s", "-t", "R"}, cluster);
  CHECK(states.status == 1);
  CHECK(states.err == "squeue: error: -t/--states cannot be combined with -s/--steps\n");
  auto unknown = run(runSqueue, {"-s", "--stepz"}, cluster);
  CHECK(unknown.status == 1);
  CHECK_THAT(unknown.err, Catch::Contains("--stepz"));
  CHECK(cluster.controller.listJobsCalls == callsBefore);  // refused before asking
}

TEST_CASE("scontrol show step", "[cli][commands][steps]") {
  Cluster cluster;
  auto one = run(runScontrol, {"show", "step", "12.0"}, cluster);
  CHECK(one.status == 0);
  CHECK(cluster.controller.lastListJobs.include_steps());
  CHECK_THAT(one.out, Catch::StartsWith("StepId=12.0 UserId=alice(1000) StartTime="));
  CHECK_THAT(one.out, Catch::Contains("\n   State=RUNNING Partition=gpu NodeList=gpu[1-2]\n"
                                      "   Nodes=2 CPUs=4 Tasks=4 Name=train.py\n"));
  CHECK_THAT(one.out, !Catch::Contains("StepId=12.1"));

  auto job = run(runScontrol, {"show", "steps", "12"}, cluster);
  CHECK(job.status == 0);
  for (const char* id : {"StepId=12.0 ", "\n\nStepId=12.1 ", "\n\nStepId=12.2 ", "\n\nStepId=12.3 "}) {
    CHECK_THAT(job.out, Catch::Contains(id));
  }
  CHECK_THAT(job.out, Catch::Contains("State=COMPLETED") && Catch::Contains("State=FAILED"));

  auto all = run(runScontrol, {"show", "step"}, cluster);
  CHECK(all.status == 0);
  CHECK_THAT(all.out, Catch::StartsWith("StepId=12.0 "));
  const auto& asked = cluster.controller.lastListJobs;
  CHECK(asked.job_ids_size() == 0);
  CHECK(std::vector<int>(asked.states().begin(), asked.states().end()) ==
        std::vector<int>{gantry::v1::RUNNING, gantry::v1::SUSPENDED});

  auto json = run(runScontrol, {"show", "step", "12.3", "--json"}, cluster);
  CHECK(json.status == 0);
  CHECK_THAT(json.out, Catch::Contains("\"id\": \"12.3\"") && Catch::Contains("\"state\": \"FAILED\""));
}

TEST_CASE("scontrol show step: unknown steps and jobs", "[cli][commands][steps]") {
  Cluster cluster;
  auto step = run(runScontrol, {"show", "step", "12.9"}, cluster);
  CHECK(step.status == 1);
  CHECK(step.out.empty());
  CHECK(step.err == "scontrol: error: Job step 12.9 not found\n");
  auto job = run(runScontrol, {"show", "step", "77"}, cluster);
  CHECK(job.status == 1);
  CHECK(job.err == "scontrol: error: Job step 77 not found\n");
  auto noSteps = run(runScontrol, {"show", "step", "13"}, cluster);
  CHECK(noSteps.status == 1);
  CHECK(noSteps.err == "scontrol: error: Job step 13 not found\n");
  auto bad = run(runScontrol, {"show", "step", "12.batch"}, cluster);
  CHECK(bad.status == 1);
  CHECK(bad.err == "scontrol: error: Invalid job step id specified: 12.batch\n");
}

TEST_CASE("scontrol reconfigure: quiet when applied, names agents that kept theirs, reports a refusal",
          "[cli][commands][reconfigure]") {
  Cluster cluster;
  auto applied = run(runScontrol, {"reconfigure"}, cluster);
  CHECK(applied.status == 0);
  CHECK(applied.out.empty());
  CHECK(applied.err.empty());
  CHECK(run(runScontrol, {"reconfig"}, cluster).status == 0);  // a prefix, as scontrol takes it
  CHECK(cluster.controller.reconfigureCalls == 2);

  cluster.controller.reconfigureNodeErrors = {"node gpu2: Resuming operation, reconfigure failed.\ngres.conf:3: x"};
  auto partly = run(runScontrol, {"reconfigure"}, cluster);
  CHECK(partly.status == 1);
  CHECK(partly.err == "scontrol: error: node gpu2: Resuming operation, reconfigure failed.\ngres.conf:3: x\n");

  cluster.controller.reconfigureRefusal = grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "Access/permission denied");
  auto denied = run(runScontrol, {"reconfigure"}, cluster);
  CHECK(denied.status == 1);
  CHECK(denied.err == "scontrol: error: reconfigure error: Access/permission denied\n");

  auto extra = run(runScontrol, {"reconfigure", "now"}, cluster);
  CHECK(extra.status == 1);
  CHECK(extra.err == "scontrol: error: reconfigure takes no arguments\n");
  CHECK(cluster.controller.reconfigureCalls == 4);
}

namespace {

// Runs `gantry api` with `input` on standard input.
Outcome runApiWithInput(std::vector<std::string> args, const std::string& input, const Cluster& cluster) {
  std::istringstream in(input);
  auto* oldIn = std::cin.rdbuf(in.rdbuf());
  Outcome outcome = run(runApi, std::move(args), cluster);
  std::cin.rdbuf(oldIn);
  return outcome;
}

}  // namespace

TEST_CASE("scontrol update TresName= sends the words unchanged and prints what stayed drained",
          "[cli][commands][drain]") {
  Cluster cluster;
  cluster.controller.leftDrained = {"gres/nic index 3 of fab1 stays drained: no device there"};
  std::vector<std::string> words = {"tresname=gres/nic", "NodeName=fab[1-2]", "Index=ALL", "Action=resume"};
  std::vector<std::string> args = {"update"};
  args.insert(args.end(), words.begin(), words.end());
  auto resumed = run(runScontrol, args, cluster);
  CHECK(resumed.status == 0);
  CHECK(resumed.out == "gres/nic index 3 of fab1 stays drained: no device there\n");
  CHECK(resumed.err.empty());
  const auto& sent = cluster.controller.lastUpdateTres;
  CHECK(std::vector<std::string>(sent.words().begin(), sent.words().end()) == words);
  CHECK(sent.json().empty());
  // A refusal is printed as other update errors are, and exits 1.
  cluster.controller.tresRefusal =
      grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "Action=Drain requires Reason=");
  auto refused = run(runScontrol, {"update", "TresName=cpu", "NodeName=fab1", "Index=2", "Action=Drain"}, cluster);
  CHECK(refused.status == 1);
  CHECK(refused.out.empty());
  CHECK(refused.err == "scontrol: error: Action=Drain requires Reason=\n");
}

TEST_CASE("scontrol update State=RESUME_KEEP_TRES is sent; left_drained lines are printed", "[cli][commands][drain]") {
  Cluster cluster;
  cluster.controller.leftDrained = {"gres/nic index 0 of fab2 stays drained: no device there"};
  auto keep = run(runScontrol, {"update", "NodeName=fab2", "State=resume_keep_tres"}, cluster);
  CHECK(keep.status == 0);
  CHECK(cluster.controller.lastUpdate.state() == "RESUME_KEEP_TRES");
  CHECK(keep.out == "gres/nic index 0 of fab2 stays drained: no device there\n");
}

TEST_CASE("scontrol show drainedtres prints the listing as it comes", "[cli][commands][drain]") {
  Cluster cluster;
  cluster.controller.drainedListing =
      "NodeName=fab1 TresName=gres/nic Index=1 Uuid=NIC-77 Reason=flap\nNodeName=fab1 TresName=mem Count=256 Reason=ecc\n";
  auto all = run(runScontrol, {"show", "drainedtres"}, cluster);
  CHECK(all.status == 0);
  CHECK(all.out == cluster.controller.drainedListing);
  CHECK(cluster.controller.lastListDrained.node_names().empty());
  auto some = run(runScontrol, {"show", "drainedtres", "fab[1-3]"}, cluster);
  CHECK(some.status == 0);
  CHECK(cluster.controller.lastListDrained.node_names() == "fab[1-3]");
  auto byKey = run(runScontrol, {"show", "DrainedTres", "nodename=fab9"}, cluster);
  CHECK(byKey.status == 0);
  CHECK(cluster.controller.lastListDrained.node_names() == "fab9");
  auto json = run(runScontrol, {"--json", "show", "drainedtres"}, cluster);
  CHECK(nlohmann::json::parse(json.out)["drained_tres"].size() == 2);
  cluster.controller.drainedListing.clear();
  auto none = run(runScontrol, {"show", "drainedtres"}, cluster);
  CHECK(none.status == 0);
  CHECK(none.out.empty());
  auto unknown = run(runScontrol, {"show", "drainedtres", "Partition=gpu"}, cluster);
  CHECK(unknown.status == 1);
  CHECK_THAT(unknown.err, Catch::Contains("show drainedtres: unknown option 'Partition=gpu'"));
}

TEST_CASE("gantry api POST /tres/ sends the JSON body and answers as JSON", "[cli][commands][api]") {
  Cluster cluster;
  std::string body = R"({"name": "gres/nic", "nodes": "fab1", "index": "1", "action": "drain", "reason": "flap"})";
  auto accepted = runApiWithInput({"POST", "/tres/"}, body, cluster);
  CHECK(accepted.status == 0);
  CHECK(cluster.controller.lastUpdateTres.json() == body);
  CHECK(cluster.controller.lastUpdateTres.words().empty());
  CHECK(nlohmann::json::parse(accepted.out) == nlohmann::json::parse(R"({"errors": [], "warnings": []})"));
  // --data instead of stdin; left_drained lines become warnings.
  cluster.controller.leftDrained = {"gres/nic index 2 of fab1 stays drained: no device there"};
  auto withData = runApiWithInput({"POST", "/tres", "--data", R"({"name":"gres/nic"})"}, "", cluster);
  CHECK(withData.status == 0);
  CHECK(cluster.controller.lastUpdateTres.json() == R"({"name":"gres/nic"})");
  CHECK(nlohmann::json::parse(withData.out)["warnings"][0] == cluster.controller.leftDrained[0]);
  // The controller refuses bad JSON; the answer carries its message and exits 1.
  cluster.controller.tresRefusal = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "request is not JSON: x");
  auto bad = runApiWithInput({"POST", "/tres/"}, "{nope", cluster);
  CHECK(bad.status == 1);
  CHECK(nlohmann::json::parse(bad.out) ==
        nlohmann::json::parse(R"({"errors": [{"error": "request is not JSON: x"}], "warnings": []})"));
}

TEST_CASE("gantry api refuses other methods, paths and an empty body, sending nothing", "[cli][commands][api]") {
  Cluster cluster;
  struct Row {
    const char* rule;
    std::vector<std::string> args;
    std::string input, error;
  };
  const Row rows[] = {
      {"another method", {"GET", "/tres/"}, "{}", "api: error: method 'GET' is not served"},
      {"another path", {"POST", "/jobs/"}, "{}", "api: error: path '/jobs/' is not served"},
      {"an empty body on stdin", {"POST", "/tres/"}, "", "api: error: the request body on standard input is empty"},
      {"no path", {"POST"}, "{}", "api: error: "},
      {"an unknown option", {"POST", "/tres/", "--verbose"}, "{}", "api: error: "},
  };
  for (const Row& row : rows) {
    INFO(row.rule);
    auto outcome = runApiWithInput(row.args, row.input, cluster);
    CHECK(outcome.status == 2);
    CHECK_THAT(outcome.err, Catch::StartsWith(row.error));
    CHECK(outcome.out.empty());
  }
  CHECK(cluster.controller.updateTresCalls == 0);
}

TEST_CASE("scontrol host lists keep their brackets and need no controller", "[cli][commands][hostlist]") {
  Cluster cluster;
  // A word in brackets is one host list, not a list of words.
  auto bare = run(runScontrol, {"show", "hostnames", "[2,6-8]"}, cluster);
  CHECK(bare.status == 0);
  CHECK(bare.out == "2\n6\n7\n8\n");
  CHECK(run(runScontrol, {"show", "hostnames", "[4-6]"}, cluster).out == "4\n5\n6\n");
  CHECK(run(runScontrol, {"show", "hostnames", "gpu[09-11],login"}, cluster).out == "gpu09\ngpu10\ngpu11\nlogin\n");
  CHECK(run(runScontrol, {"show", "hostlist", "rk7,rk5,rk6,edge"}, cluster).out == "rk[7,5-6],edge\n");
  CHECK(run(runScontrol, {"show", "hostlistsorted", "rk7,rk5,rk6,edge"}, cluster).out == "edge,rk[5-7]\n");
  auto bad = run(runScontrol, {"show", "hostnames", "rk[9-3]"}, cluster);
  CHECK(bad.status == 1);
  CHECK(bad.err.find("Invalid hostlist: rk[9-3]") != std::string::npos);
  auto none = run(runScontrol, {"show", "hostlistsorted"}, cluster);
  CHECK(none.status == 1);
  CHECK(none.err.find("invalid encode argument") != std::string::npos);
}

TEST_CASE("scontrol job actions take id lists and report each failed id", "[cli][commands][job_ids]") {
  Cluster cluster;
  auto several = run(runScontrol, {"hold", "21,404,22", "23", "JobId=24"}, cluster);
  CHECK(several.status == 1);
  CHECK(cluster.controller.actions == std::vector<std::string>{"hold 21", "hold 22", "hold 23", "hold 24"});
  CHECK(several.err == "Invalid job id specified for job 404\n");
  auto bad = run(runScontrol, {"release", "25,x7"}, cluster);
  CHECK(bad.status == 1);
  CHECK(bad.err == "Invalid job id specified for job x7\n");
  CHECK(cluster.controller.actions.back() == "release 25");
  auto requeued = run(runScontrol, {"requeue", "26,27"}, cluster);
  CHECK(requeued.status == 0);
  CHECK(cluster.controller.actions.back() == "requeue 27");
  auto none = run(runScontrol, {"resume"}, cluster);
  CHECK(none.status == 1);
  CHECK(none.err == "scontrol: error: too few arguments for keyword:resume\n");
}

TEST_CASE("scontrol ping says UP, and DOWN with exit 1 when nothing answers", "[cli][commands][ping]") {
  Cluster cluster;
  auto up = run(runScontrol, {"ping"}, cluster);
  CHECK(up.status == 0);
  CHECK(up.out == "Slurmctld(primary) at localhost is UP\n");
  CHECK(cluster.controller.pings == 1);
  auto json = run(runScontrol, {"--json", "ping"}, cluster);
  CHECK(json.status == 0);
  auto parsed = nlohmann::json::parse(json.out);
  REQUIRE(parsed["pings"].size() == 1);
  const auto& ping = parsed["pings"][0];
  CHECK(ping["hostname"] == "localhost");
  CHECK(ping["pinged"] == "UP");
  CHECK(ping["mode"] == "primary");
  CHECK(ping["primary"] == true);
  CHECK(ping["responding"] == true);
  CHECK(ping["latency"].is_number());
  CHECK(parsed["meta"]["command"] ==
        nlohmann::json({"scontrol", "--conf-dir", cluster.confDir(), "--json", "ping"}));
  CHECK(parsed["errors"] == nlohmann::json::array());

  // A port the kernel handed out and that nothing listens on.
  int probe = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(probe >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  REQUIRE(::bind(probe, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  REQUIRE(::getsockname(probe, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  auto dir = std::filesystem::temp_directory_path() / ("gantry-cli-ping-down-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "gantry.conf") << "ClusterName=test\nSlurmctldHost=ctl7(127.0.0.1)\nSlurmctldPort="
                                     << ntohs(address.sin_port)
                                     << "\nAuthType=auth/none\nNodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n";
  std::ostringstream out;
  auto* oldOut = std::cout.rdbuf(out.rdbuf());
  int status = runScontrol({"--conf-dir", dir.string(), "ping"});
  std::ostringstream jsonOut;
  std::cout.rdbuf(jsonOut.rdbuf());
  int jsonStatus = runScontrol({"--conf-dir", dir.string(), "--json", "ping"});
  std::cout.rdbuf(oldOut);
  std::filesystem::remove_all(dir);
  ::close(probe);
  CHECK(status == 1);
  CHECK_THAT(out.str(), Catch::StartsWith("Slurmctld(primary) at ctl7 is DOWN\n"));
  CHECK(jsonStatus == 0);
  auto down = nlohmann::json::parse(jsonOut.str());
  CHECK(down["pings"][0]["pinged"] == "DOWN");
  CHECK(down["pings"][0]["responding"] == false);
}

TEST_CASE("scontrol shutdown: sent once, refusals in Slurm's words, bad arguments send nothing",
          "[cli][commands][shutdown]") {
  Cluster cluster;
  CHECK(run(runScontrol, {"shutdown"}, cluster).status == 0);
  CHECK(run(runScontrol, {"shutdown", "controller"}, cluster).status == 0);
  CHECK(run(runScontrol, {"shutdown", "slurmctld"}, cluster).status == 0);
  CHECK(cluster.controller.shutdowns == 3);
  auto badWord = run(runScontrol, {"shutdown", "agents"}, cluster);
  CHECK(badWord.status == 1);
  CHECK(badWord.err == "invalid shutdown argument:agents\n");
  auto tooMany = run(runScontrol, {"shutdown", "slurmctld", "now"}, cluster);
  CHECK(tooMany.status == 1);
  CHECK(tooMany.err == "too many arguments for keyword:shutdown\n");
  CHECK(cluster.controller.shutdowns == 3);
  cluster.controller.shutdownRefusal = grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "Access/permission denied");
  auto refused = run(runScontrol, {"shutdown"}, cluster);
  CHECK(refused.status == 1);
  CHECK(refused.err == "slurm_shutdown error:Access/permission denied\n");
}

TEST_CASE("--json of squeue, sinfo and scontrol show carries meta.command", "[cli][commands][json]") {
  Cluster cluster;
  const std::vector<std::string> prefix = {"--conf-dir", cluster.confDir()};
  auto command = [&](const std::string& program, std::vector<std::string> words) {
    std::vector<std::string> all = {program};
    all.insert(all.end(), prefix.begin(), prefix.end());
    all.insert(all.end(), words.begin(), words.end());
    return nlohmann::json(all);
  };
  auto squeue = nlohmann::json::parse(run(runSqueue, {"--json"}, cluster).out);
  CHECK(squeue["meta"]["command"] == command("squeue", {"--json"}));
  CHECK(squeue["jobs"].size() == 2);
  CHECK(squeue["meta"]["slurm"]["cluster"] == "test");
  auto steps = nlohmann::json::parse(run(runSqueue, {"--json", "-s"}, cluster).out);
  CHECK(steps["meta"]["command"] == command("squeue", {"--json", "-s"}));
  auto sinfo = nlohmann::json::parse(run(runSinfo, {"--json"}, cluster).out);
  CHECK(sinfo["meta"]["command"] == command("sinfo", {"--json"}));
  CHECK(sinfo["nodes"].is_array());
  CHECK(sinfo["warnings"] == nlohmann::json::array());
  for (std::vector<std::string> words : std::vector<std::vector<std::string>>{
           {"--json", "show", "job"}, {"--json", "show", "jobs"}, {"--json", "show", "steps"},
           {"--json", "show", "nodes"}, {"--json", "show", "partitions"}, {"--json", "show", "config"},
           {"--json", "show", "licenses"}, {"--json", "show", "reservations"}}) {
    auto outcome = run(runScontrol, words, cluster);
    INFO(words[2]);
    CHECK(outcome.status == 0);
    auto parsed = nlohmann::json::parse(outcome.out);
    CHECK(parsed["meta"]["command"] == command("scontrol", words));
    CHECK(parsed["errors"] == nlohmann::json::array());
  }
  auto licenses = nlohmann::json::parse(run(runScontrol, {"--json", "show", "lic"}, cluster).out);
  CHECK(licenses["licenses"] == nlohmann::json::array());
  auto reservations = nlohmann::json::parse(run(runScontrol, {"--json", "show", "res"}, cluster).out);
  CHECK(reservations["reservations"] == nlohmann::json::array());
}

TEST_CASE("scontrol show licenses and reservations: Gantry has none", "[cli][commands]") {
  Cluster cluster;
  auto licenses = run(runScontrol, {"show", "licenses"}, cluster);
  CHECK(licenses.status == 0);
  CHECK(licenses.out == "No licenses configured in Slurm.\n");
  auto reservations = run(runScontrol, {"show", "reservation"}, cluster);
  CHECK(reservations.status == 0);
  CHECK(reservations.out == "No reservations in the system\n");
  auto named = run(runScontrol, {"show", "reservation", "maint7"}, cluster);
  CHECK(named.status == 1);
  CHECK(named.out == "Reservation maint7 not found\n");
  auto unknown = run(runScontrol, {"show", "l"}, cluster);  // shorter than Slurm's two letters
  CHECK(unknown.status == 1);
}

TEST_CASE("scontrol -o prints one record a line; -a and -dd are accepted", "[cli][commands][oneliner]") {
  Cluster cluster;
  auto nodes = run(runScontrol, {"-o", "show", "node"}, cluster);
  CHECK(nodes.status == 0);
  CHECK(std::count(nodes.out.begin(), nodes.out.end(), '\n') == 5);  // the fixture's five nodes
  CHECK_THAT(nodes.out, Catch::StartsWith("NodeName=cpu1 "));
  CHECK_THAT(nodes.out, Catch::Contains(" Partitions=cpu SlurmdStartTime=2026-11-29T10:00:00 LastBusyTime=2026-11-30T08:00:00 CfgTRES=cpu=8,mem=64000M,billing=8 AllocTRES=\nNodeName=cpu2 "));
  CHECK_THAT(nodes.out, Catch::Contains("\nNodeName=gpu2 "));
  auto jobs = run(runScontrol, {"--oneliner", "-a", "show", "job", "12"}, cluster);
  CHECK(jobs.status == 0);
  CHECK(std::count(jobs.out.begin(), jobs.out.end(), '\n') == 1);
  CHECK_THAT(jobs.out, Catch::StartsWith("JobId=12 JobName=train UserId="));
  auto detailed = run(runScontrol, {"-dd", "-o", "show", "job", "12"}, cluster);
  CHECK(detailed.status == 0);
  CHECK_THAT(detailed.out, Catch::Contains(" Nodes=gpu1 CPU_IDs="));
  CHECK(std::count(detailed.out.begin(), detailed.out.end(), '\n') == 1);
  auto partitions = run(runScontrol, {"-ao", "show", "partition"}, cluster);
  CHECK(partitions.status == 0);
  CHECK_THAT(partitions.out, Catch::StartsWith("PartitionName="));
  auto steps = run(runScontrol, {"-o", "show", "step"}, cluster);
  CHECK(steps.status == 0);
  CHECK_THAT(steps.out, Catch::StartsWith("StepId="));
  CHECK(steps.out.find("\n   ") == std::string::npos);
}

TEST_CASE("scontrol update JobId= sends the fields given and reports a refusal per job", "[cli][commands][job_update]") {
  Cluster cluster;
  auto ok = run(runScontrol, {"update", "JobId=12", "TimeLimit=45", "Comment=shorter"}, cluster);
  CHECK(ok.status == 0);
  CHECK(cluster.controller.lastUpdateJob.job_id() == 12);
  CHECK(cluster.controller.lastUpdateJob.time_limit_minutes() == 45);
  CHECK(cluster.controller.lastUpdateJob.comment() == "shorter");
  CHECK_FALSE(cluster.controller.lastUpdateJob.has_name());
  auto refused = run(runScontrol, {"update", "JobId=404", "Name=x"}, cluster);
  CHECK(refused.status == 1);
  CHECK(refused.err == "Invalid job id specified for job 404\n");
  auto bad = run(runScontrol, {"update", "JobId=12", "TimeLimit=later"}, cluster);
  CHECK(bad.status == 1);
  CHECK(bad.err == "scontrol: error: Invalid TimeLimit value\n");
}
