#include "cli/allocation.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

extern char** environ;

namespace gantry::cli {

SubmitContext currentSubmitContext() {
  SubmitContext context;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string item = *entry;
    size_t eq = item.find('=');
    if (eq != std::string::npos) context.environment[item.substr(0, eq)] = item.substr(eq + 1);
  }
  std::error_code ec;
  context.workDir = std::filesystem::current_path(ec).string();
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) context.submitHost = host;
  context.readNodeFile = [](const std::string& path) -> Result<std::string> {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{"cannot open node file '" + path + "': " + std::strerror(errno)};
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  return context;
}

Result<gantry::v1::Job> fetchJob(const ControllerClient& client, uint64_t jobId) {
  gantry::v1::ListJobsRequest request;
  request.add_job_ids(jobId);
  auto response = client.call<gantry::v1::ListJobsResponse>(
      [&request](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.ListJobs(context, request, out);
      });
  if (!response) return response.failure();
  if (response->jobs_size() == 0) {
    return Error{ErrorCode::NotFound, "job " + std::to_string(jobId) + " is no longer known"};
  }
  return response->jobs(0);
}

Result<gantry::v1::Job> allocate(const ControllerClient& client, gantry::v1::JobSpec spec,
                                 const std::string& program, const std::atomic<bool>* abort,
                                 AllocationKeeper* keeper, const Verbosity& verbosity) {
  spec.clear_script();
  spec.set_client_keepalive(keeper != nullptr);
  gantry::v1::SubmitJobRequest request;
  *request.mutable_spec() = std::move(spec);
  auto submitted = client.call<gantry::v1::SubmitJobResponse>(
      [&request](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.SubmitJob(context, request, out);
      });
  // Each launcher words a refused submission as Slurm's does; scripts grep
  // for these prefixes.
  if (!submitted) {
    const char* prefix = program == "srun" ? "Unable to allocate resources: " : "Job submit/allocate failed: ";
    return Error{submitted.errorCode(), prefix + submitted.error()};
  }
  const uint64_t jobId = submitted->job_id();
  if (keeper != nullptr) keeper->start(jobId);
  const bool informs = verbosity.informs();
  if (program == "salloc" && informs) std::cerr << "salloc: Pending job allocation " << jobId << "\n";
  bool announcedWait = false;
  bool announcedConfiguring = false;
  for (;;) {
    auto job = fetchJob(client, jobId);
    if (!job) return job.failure();
    if (job->state() == gantry::v1::RUNNING) {
      if (announcedWait && program == "srun" && informs) {
        std::cerr << "srun: job " << jobId << " has been allocated resources\n";
      }
      if (program == "salloc" && informs) std::cerr << "salloc: Granted job allocation " << jobId << "\n";
      return *job;
    }
    // CONFIGURING: the nodes are held while switch.lua sets the
    // interconnect up; the allocation is granted once that is done.
    bool configuring = job->state() == gantry::v1::CONFIGURING;
    if (!configuring && job->state() != gantry::v1::PENDING) {
      return Error{"job " + std::to_string(jobId) + " ended before it started (" + job->reason() + ")"};
    }
    if (configuring && !announcedConfiguring && informs) {
      std::cerr << program << ": Waiting for resource configuration\n";
      announcedConfiguring = true;
    }
    if (abort != nullptr && *abort) {
      (void)releaseAllocation(client, jobId, 0);
      return Error{"Job allocation " + std::to_string(jobId) + " has been revoked"};
    }
    if (!announcedWait && !configuring) {
      if (informs) std::cerr << program << ": job " << jobId << " queued and waiting for resources\n";
      announcedWait = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

Status releaseAllocation(const ControllerClient& client, uint64_t jobId, int exitCode) {
  gantry::v1::CompleteAllocationRequest request;
  request.set_job_id(jobId);
  request.set_exit_code(exitCode);
  auto response = client.call<gantry::v1::CompleteAllocationResponse>(
      [&request](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.CompleteAllocation(context, request, out);
      });
  if (!response) return response.failure();
  return okStatus();
}

std::map<std::string, std::string> allocationEnvironment(const gantry::v1::Job& job) {
  const std::string id = std::to_string(job.job_id());
  const std::string nodes = std::to_string(job.allocation_size());
  std::map<std::string, std::string> env = {
      {"SLURM_JOB_ID", id},
      {"SLURM_JOBID", id},
      {"SLURM_JOB_NAME", job.spec().name()},
      {"SLURM_JOB_NODELIST", job.node_list()},
      {"SLURM_NODELIST", job.node_list()},
      {"SLURM_JOB_NUM_NODES", nodes},
      {"SLURM_NNODES", nodes},
      {"SLURM_JOB_PARTITION", job.spec().partition()},
      {"SLURM_SUBMIT_DIR", job.spec().work_dir()},
      {"SLURM_SUBMIT_HOST", job.spec().submit_host()},
  };
  if (job.allocation_size() > 0) {
    const auto& first = job.allocation(0);
    env["SLURM_CPUS_ON_NODE"] = std::to_string(first.cpus_size() > 0 ? first.cpus_size() : first.cores_size());
  }
  if (job.spec().ntasks() > 0) {
    env["SLURM_NTASKS"] = std::to_string(job.spec().ntasks());
    env["SLURM_NPROCS"] = env["SLURM_NTASKS"];
  }
  return env;
}

}  // namespace gantry::cli
