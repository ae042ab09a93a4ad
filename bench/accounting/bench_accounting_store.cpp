// Measures the accounting store (controller/accounting), on each backend:
// SQLite in a temporary folder, PostgreSQL on a throwaway server (fsync on)
// started by the tests' helper (tests/unit/controller/accounting/
// postgres_server.h).
//   1. ingest: N job records appended in batches, records/s until durable
//      (target >= 10,000/s);
//   2. query: one user's jobs since the start of a month, over a database
//      of many jobs spread over three months (target <= 50 ms with
//      1,000,000 jobs: run with --full).
// The databases are removed at the end.
//
//   bench_accounting_store [--ingest N] [--batch B] [--jobs M] [--full]
//                          [--backend sqlite|postgresql|both]
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "controller/accounting/accounting_open.h"
#include "tests/unit/controller/accounting/postgres_server.h"

using namespace gantry::accounting;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int64_t kNow = 1'900'000'000;
constexpr int64_t kDay = 86'400;
constexpr int64_t kMonth = 30 * kDay;
constexpr uint32_t kUsers = 500;
constexpr uint32_t kFirstUid = 10'000;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A finished job as the controller would record it, with the TRES strings
// a GPU job carries, spread over the three months before kNow.
JobRecord benchJob(uint64_t id, std::mt19937_64& random) {
  JobRecord r;
  r.cluster = "bench";
  r.jobId = id;
  r.uid = kFirstUid + static_cast<uint32_t>(random() % kUsers);
  r.user = "user" + std::to_string(r.uid);
  r.gid = r.uid;
  r.group = r.user;
  r.account = "acct" + std::to_string(r.uid % 40);
  r.partition = "gpu";
  r.name = "train-" + std::to_string(id % 977);
  r.submitTime = kNow - 3 * kMonth + static_cast<int64_t>(random() % (3 * kMonth));
  r.eligibleTime = r.submitTime;
  r.startTime = r.submitTime + static_cast<int64_t>(random() % 600);
  r.endTime = r.startTime + 60 + static_cast<int64_t>(random() % (4 * 3600));
  r.timeLimitMinutes = 240;
  r.state = "COMPLETED";
  r.nodeCount = 1;
  r.nodeList = "gpn" + std::to_string(random() % 512);
  r.allocCpus = 16;
  r.reqTres = "billing=16,cpu=16,gres/gpu=2,mem=64G,node=1";
  r.allocTres = "billing=16,cpu=16,gres/gpu:h100=2,gres/gpu=2,mem=64G,node=1";
  r.usageIn.ave = "cpu=00:10:11,energy=0,fs/disk=81234,gres/gpumem=30211M,gres/gpuutil=97,mem=612331K,pages=0,vmem=0";
  r.usageIn.tot = "cpu=00:20:22,energy=0,fs/disk=162468,gres/gpumem=60422M,gres/gpuutil=194,mem=1224662K,pages=0,vmem=0";
  r.workDir = "/home/" + r.user;
  return r;
}

// Appends `count` records in batches of `batch`; returns records/s until
// the last one is durable. With `awaitEach`, each batch waits until it is
// durable before the next is appended (one transaction per batch, the
// slowest a caller can make it); otherwise batches queue behind the writer
// and are group-committed.
double ingest(AccountingStore& store, uint64_t firstId, uint64_t count, uint64_t batch, std::mt19937_64& random,
              bool awaitEach = false) {
  auto start = Clock::now();
  for (uint64_t done = 0; done < count;) {
    std::vector<JobRecord> records;
    uint64_t size = std::min(batch, count - done);
    records.reserve(size);
    for (uint64_t i = 0; i < size; ++i) records.push_back(benchJob(firstId + done + i, random));
    if (auto status = store.appendJobs(std::move(records)); !status) {
      std::fprintf(stderr, "append: %s\n", status.error().c_str());
      std::exit(1);
    }
    done += size;
    if (awaitEach) store.flush();
  }
  store.flush();
  return static_cast<double>(count) / secondsSince(start);
}

// Opens a fresh store named `name` on the backend being measured.
using Opener = std::function<gantry::Result<std::unique_ptr<AccountingStore>>(const std::string& name)>;

int measure(const char* backend, const Opener& open, uint64_t ingestCount, uint64_t batch, uint64_t jobs) {
  std::mt19937_64 random(42);
  for (bool awaitEach : {false, true}) {
    auto store = open(awaitEach ? "ingest_awaited" : "ingest_queued");
    if (!store) {
      std::fprintf(stderr, "%s\n", store.error().c_str());
      return 1;
    }
    double rate = ingest(**store, 1, ingestCount, batch, random, awaitEach);
    std::printf("%s ingest (%s): %llu records in batches of %llu: %.0f records/s (%llu transactions)\n", backend,
                awaitEach ? "each batch awaited" : "batches queued", static_cast<unsigned long long>(ingestCount),
                static_cast<unsigned long long>(batch), rate,
                static_cast<unsigned long long>((*store)->transactions()));
  }

  auto opened = open("query");
  if (!opened) {
    std::fprintf(stderr, "%s\n", opened.error().c_str());
    return 1;
  }
  AccountingStore& store = **opened;
  auto building = Clock::now();
  double buildRate = ingest(store, 1, jobs, 10'000, random);
  std::printf("%s database: %llu jobs written in %.1f s (%.0f records/s in batches of 10000)\n", backend,
              static_cast<unsigned long long>(jobs), secondsSince(building), buildRate);

  // sacct -u <user> -S <start of the month>: a window from the month's
  // start to now.
  JobQuery query;
  query.uids = {kFirstUid + 7};
  query.window = TimeWindow{.start = kNow - kMonth, .end = kNow};
  std::vector<double> times;
  size_t rows = 0;
  for (int run = 0; run < 21; ++run) {
    auto start = Clock::now();
    auto found = store.jobs(query);
    times.push_back(secondsSince(start) * 1000.0);
    if (!found) {
      std::fprintf(stderr, "query: %s\n", found.error().c_str());
      return 1;
    }
    rows = found->size();
  }
  std::sort(times.begin(), times.end());
  std::printf("%s query: user since the month's start over %llu jobs: %zu records, median %.1f ms, best %.1f ms\n",
              backend, static_cast<unsigned long long>(jobs), rows, times[times.size() / 2], times.front());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"accounting store benchmark"};
  uint64_t ingestCount = 50'000;
  uint64_t batch = 1'000;
  uint64_t jobs = 100'000;
  bool full = false;
  std::string backend = "both";
  app.add_option("--ingest", ingestCount, "records for the ingest measurement");
  app.add_option("--batch", batch, "records per append call");
  app.add_option("--jobs", jobs, "jobs in the database the query runs over");
  app.add_flag("--full", full, "the query over 1,000,000 jobs");
  app.add_option("--backend", backend, "sqlite, postgresql or both")
      ->check(CLI::IsMember({"sqlite", "postgresql", "both"}));
  CLI11_PARSE(app, argc, argv);
  if (full) jobs = 1'000'000;

  int failed = 0;
  if (backend != "postgresql") {
    auto dir = std::filesystem::temp_directory_path() / ("gantry-bench-accounting-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    failed |= measure("sqlite", [&](const std::string& name) {
      return openAccountingStore({.backend = AccountingConnection::Backend::Sqlite,
                                  .path = (dir / (name + ".db")).string()});
    }, ingestCount, batch, jobs);
    std::filesystem::remove_all(dir);
  }
  if (backend != "sqlite") {
    auto server = gantry::accounting::testing::PostgresTestServer::start({.durable = true});
    if (!server) {
      std::fprintf(stderr, "postgresql: no server: %s\n", server.error().c_str());
      return 1;
    }
    failed |= measure("postgresql", [&](const std::string& name) -> gantry::Result<std::unique_ptr<AccountingStore>> {
      if (auto status = (*server)->freshDatabase(name); !status) return status.failure();
      return openAccountingStore((*server)->connection(name));
    }, ingestCount, batch, jobs);
  }
  return failed;
}
