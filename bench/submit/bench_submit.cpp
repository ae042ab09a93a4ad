// Submission throughput and latency through the real gRPC API.
//
//   bench_submit --conf-dir DIR [--jobs N] [--threads T] [--hold]
//
// T client threads submit N jobs in total, each waiting for its answer
// (which the controller gives only once the job is durable). Prints one
// machine-readable line: jobs, threads, seconds, jobs per second, and the
// p50/p99/max latency of one SubmitJob in microseconds.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

#include "common/config/gantry_conf.h"
#include "common/rpc/channel.h"
#include "gantry/v1/controller.grpc.pb.h"

int main(int argc, char** argv) {
  CLI::App app{"bench_submit"};
  std::string confDir;
  int jobs = 1000, threads = 4;
  bool hold = false;
  app.add_option("--conf-dir", confDir)->required();
  app.add_option("--jobs", jobs);
  app.add_option("--threads", threads);
  app.add_flag("--hold", hold, "submit held jobs (measures the controller and store only)");
  CLI11_PARSE(app, argc, argv);

  auto loaded = gantry::config::loadGantryConf(std::filesystem::path(confDir) / "gantry.conf");
  if (!loaded) {
    std::cerr << loaded.error() << "\n";
    return 1;
  }
  const auto& conf = loaded->conf;
  auto authenticator = gantry::auth::makeAuthenticator(conf.authType, conf.authInfo);
  if (!authenticator) {
    std::cerr << authenticator.error() << "\n";
    return 1;
  }
  auto channel = gantry::rpc::makeChannel(conf.controllerAddr, conf.controllerPort);
  auto stub = gantry::v1::Controller::NewStub(channel);

  std::atomic<int> next{0};
  std::atomic<int> failures{0};
  std::mutex mutex;
  std::vector<double> latencies;
  latencies.reserve(jobs);
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      std::vector<double> mine;
      gantry::v1::SubmitJobRequest request;
      auto* spec = request.mutable_spec();
      spec->set_name("bench");
      spec->set_script("#!/bin/sh\ntrue\n");
      spec->set_work_dir("/tmp");
      spec->set_stdout_pattern("/dev/null");
      spec->set_hold(hold);
      while (next.fetch_add(1) < jobs) {
        auto context = gantry::rpc::makeCallContext(**authenticator);
        if (!context) {
          ++failures;
          continue;
        }
        gantry::v1::SubmitJobResponse response;
        auto t0 = std::chrono::steady_clock::now();
        grpc::Status status = stub->SubmitJob(context->get(), request, &response);
        auto t1 = std::chrono::steady_clock::now();
        if (!status.ok()) {
          ++failures;
          continue;
        }
        mine.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      }
      std::lock_guard lock(mutex);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
    });
  }
  for (auto& w : workers) w.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    if (latencies.empty()) return 0.0;
    size_t i = std::min(latencies.size() - 1, static_cast<size_t>(p * latencies.size()));
    return latencies[i];
  };
  std::printf("grpc_submit jobs=%zu threads=%d failures=%d seconds=%.3f jobs_per_sec=%.0f "
              "p50_us=%.0f p99_us=%.0f max_us=%.0f\n",
              latencies.size(), threads, failures.load(), seconds, latencies.size() / seconds, pct(0.50),
              pct(0.99), latencies.empty() ? 0.0 : latencies.back());
  return failures.load() == 0 ? 0 : 1;
}
