// The gRPC side of bench/switch/setups_in_flight.py: submits the bench's
// jobs and times one cheap RPC, straight over the controller's API, so that
// neither the command line's own start-up nor Python is in the numbers.
//
//   bench_rpc_probe submit  --conf-dir DIR --jobs N [--network NET] [--mem MB] [--threads T] [--hold]
//       N one-CPU batch jobs (--no-requeue). Prints the first and last job
//       id and the submission's duration.
//   bench_rpc_probe latency --conf-dir DIR --job-id ID [--calls N] [--pause-ms P]
//       ListJobs for that one job (what `squeue -j ID` asks), N times one
//       after another, P ms apart. Each call goes through the controller
//       core's strand, so a core kept busy by something else shows here.
//       Prints the percentiles of one call in microseconds.
//   bench_rpc_probe release --conf-dir DIR --first A --last B [--threads T]
//       Releases the held jobs A..B (one ReleaseJob each, from T threads),
//       so they reach the scheduler together.
//   bench_rpc_probe states  --conf-dir DIR
//       The number of active jobs in each state, one "STATE=N" per line.
//
// Every call carries a MUNGE credential, as the CLI's do; creating it is
// outside the timed part, checking it on the controller is inside.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/config/gantry_conf.h"
#include "common/rpc/channel.h"
#include "gantry/v1/controller.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Connection {
  std::unique_ptr<gantry::auth::Authenticator> authenticator;
  std::unique_ptr<gantry::v1::Controller::Stub> stub;
};

bool connect(const std::string& confDir, Connection& out) {
  auto loaded = gantry::config::loadGantryConf(std::filesystem::path(confDir) / "gantry.conf");
  if (!loaded) {
    std::cerr << loaded.error() << "\n";
    return false;
  }
  const auto& conf = loaded->conf;
  auto authenticator = gantry::auth::makeAuthenticator(conf.authType, conf.authInfo);
  if (!authenticator) {
    std::cerr << authenticator.error() << "\n";
    return false;
  }
  out.authenticator = std::move(*authenticator);
  out.stub = gantry::v1::Controller::NewStub(gantry::rpc::makeChannel(conf.controllerAddr, conf.controllerPort));
  return true;
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0.0;
  return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * sorted.size()))];
}

int submit(Connection& c, int jobs, const std::string& network, uint64_t memMb, int threads, bool hold) {
  gantry::v1::SubmitJobRequest request;
  auto* spec = request.mutable_spec();
  spec->set_name("swbench");
  spec->set_script("#!/bin/sh\ntrue\n");
  spec->set_work_dir("/");  // the jobs never run: cancelled while CONFIGURING
  spec->set_stdout_pattern("/dev/null");
  spec->set_ntasks(1);
  spec->set_mem_per_node_mb(memMb);
  spec->set_no_requeue(true);  // a failed setup then cancels the job, as the bench expects
  spec->set_network(network);
  spec->set_hold(hold);

  std::atomic<int> next{0}, failures{0};
  std::mutex mutex;
  std::vector<uint64_t> ids;
  std::string firstError;
  auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      while (next.fetch_add(1) < jobs) {
        auto context = gantry::rpc::makeCallContext(*c.authenticator);
        gantry::v1::SubmitJobResponse response;
        grpc::Status status = context ? c.stub->SubmitJob(context->get(), request, &response)
                                      : grpc::Status(grpc::StatusCode::UNAUTHENTICATED, context.error());
        std::lock_guard lock(mutex);
        if (status.ok()) {
          ids.push_back(response.job_id());
        } else if (failures++ == 0) {
          firstError = status.error_message();
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (failures > 0) std::cerr << failures << " submissions failed; the first: " << firstError << "\n";
  if (ids.empty()) return 1;
  std::sort(ids.begin(), ids.end());
  std::printf("submitted=%zu failures=%d seconds=%.3f first=%llu last=%llu\n", ids.size(), failures.load(), seconds,
              static_cast<unsigned long long>(ids.front()), static_cast<unsigned long long>(ids.back()));
  return failures == 0 ? 0 : 1;
}

int latency(Connection& c, uint64_t jobId, int calls, int pauseMs) {
  gantry::v1::ListJobsRequest request;
  request.add_job_ids(jobId);
  std::vector<double> us;
  us.reserve(calls);
  int failures = 0;
  for (int i = 0; i < calls; ++i) {
    auto context = gantry::rpc::makeCallContext(*c.authenticator);
    if (!context) {
      ++failures;
      continue;
    }
    gantry::v1::ListJobsResponse response;
    auto t0 = Clock::now();
    grpc::Status status = c.stub->ListJobs(context->get(), request, &response);
    auto t1 = Clock::now();
    if (status.ok() && response.jobs_size() == 1) {
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    } else {
      ++failures;
    }
    if (pauseMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pauseMs));
  }
  std::sort(us.begin(), us.end());
  double mean = 0;
  for (double v : us) mean += v;
  if (!us.empty()) mean /= us.size();
  std::printf("calls=%zu failures=%d mean_us=%.0f p50_us=%.0f p95_us=%.0f p99_us=%.0f max_us=%.0f\n", us.size(),
              failures, mean, percentile(us, 0.50), percentile(us, 0.95), percentile(us, 0.99),
              us.empty() ? 0.0 : us.back());
  return failures == 0 ? 0 : 1;
}

int release(Connection& c, uint64_t first, uint64_t last, int threads) {
  std::atomic<uint64_t> next{first};
  std::atomic<int> failures{0};
  auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (uint64_t id = next++; id <= last; id = next++) {
        gantry::v1::JobActionRequest request;
        request.set_job_id(id);
        auto context = gantry::rpc::makeCallContext(*c.authenticator);
        gantry::v1::JobActionResponse response;
        if (!context || !c.stub->ReleaseJob(context->get(), request, &response).ok()) ++failures;
      }
    });
  }
  for (auto& w : workers) w.join();
  std::printf("released=%llu failures=%d seconds=%.3f\n", static_cast<unsigned long long>(last - first + 1),
              failures.load(), std::chrono::duration<double>(Clock::now() - start).count());
  return failures == 0 ? 0 : 1;
}

int states(Connection& c) {
  std::map<std::string, int> counts;
  uint64_t after = 0;
  for (;;) {
    gantry::v1::ListJobsRequest request;
    request.set_after_job_id(after);
    auto context = gantry::rpc::makeCallContext(*c.authenticator);
    if (!context) {
      std::cerr << context.error() << "\n";
      return 1;
    }
    gantry::v1::ListJobsResponse response;
    grpc::Status status = c.stub->ListJobs(context->get(), request, &response);
    if (!status.ok()) {
      std::cerr << status.error_message() << "\n";
      return 1;
    }
    if (response.jobs_size() == 0) break;
    for (const auto& job : response.jobs()) {
      ++counts[gantry::v1::JobState_Name(job.state())];
      after = std::max<uint64_t>(after, job.job_id());
    }
  }
  for (const auto& [state, count] : counts) std::printf("%s=%d\n", state.c_str(), count);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_rpc_probe"};
  app.require_subcommand(1);
  std::string confDir, network = "bench";
  int jobs = 1000, threads = 4, calls = 200, pauseMs = 5;
  uint64_t memMb = 16, jobId = 0, first = 0, last = 0;
  bool hold = false;
  for (auto* sub : {app.add_subcommand("submit"), app.add_subcommand("latency"), app.add_subcommand("release"),
                    app.add_subcommand("states")}) {
    sub->add_option("--conf-dir", confDir)->required();
  }
  auto* submitCmd = app.get_subcommand("submit");
  submitCmd->add_option("--jobs", jobs);
  submitCmd->add_option("--network", network);
  submitCmd->add_option("--mem", memMb, "MB per job");
  submitCmd->add_option("--threads", threads);
  submitCmd->add_flag("--hold", hold, "submit held, for `release` to start them together");
  auto* latencyCmd = app.get_subcommand("latency");
  latencyCmd->add_option("--job-id", jobId)->required();
  latencyCmd->add_option("--calls", calls);
  latencyCmd->add_option("--pause-ms", pauseMs, "between calls, so the probe is not itself a load");
  auto* releaseCmd = app.get_subcommand("release");
  releaseCmd->add_option("--first", first)->required();
  releaseCmd->add_option("--last", last)->required();
  releaseCmd->add_option("--threads", threads);
  CLI11_PARSE(app, argc, argv);

  Connection connection;
  if (!connect(confDir, connection)) return 1;
  if (submitCmd->parsed()) return submit(connection, jobs, network, memMb, threads, hold);
  if (releaseCmd->parsed()) return release(connection, first, last, threads);
  if (latencyCmd->parsed()) return latency(connection, jobId, calls, pauseMs);
  return states(connection);
}
