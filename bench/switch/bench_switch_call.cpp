// What running a switch.lua call in a process of its own costs: fork and
// exec of the helper, a fresh Lua state loading the script, the call, and
// the report back on the runner's thread.
//
// 1. One slurm_switch_job_start() call at a time, `calls` times: median and
//    99th percentile from start() to the report.
// 2. `burst` calls started at once: the time the caller spent in start()
//    for all of them (it only queues), and the time until the last report.
//
// 3. `burst` calls held in flight at once (each waits at a FIFO until
//    released): the time until all run, the descriptors the runner's
//    process holds then, and the time from the release to the last report.
//
// The script is a small one of the usual shape (a table built from the job,
// one log line). The helper is gantryswitchcall beside this program.
//
// Usage: bench_switch_call [calls, default 200] [burst, default 1000]
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "controller/switch/runner/call_runner.h"

using namespace gantry::interconnect;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kScript = R"(
local function ports_for(job)
  local ports = {}
  for i, node in ipairs(job.node_list) do ports[i] = node .. ":p" .. i end
  return ports
end

function slurm_switch_job_start(job)
  slurm.log_info("setting up %s for JobId=%d", job.network, job.job_id)
  return slurm.SUCCESS, { vni = 4000 + job.job_id % 1000, ports = ports_for(job) }
end
)";

const char* kJob = R"({"job_id": 8123, "sluid": "s8123", "network": "vni", "num_nodes": 4,
                       "node_list": ["n001", "n002", "n003", "n004"], "nodes": "n[001-004]"})";

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

class Countdown {
 public:
  explicit Countdown(size_t count) : left_(count) {}
  void done(bool ok) {
    std::lock_guard lock(mutex_);
    if (!ok) ++failed_;
    if (--left_ == 0) zero_.notify_all();
  }
  size_t wait() {
    std::unique_lock lock(mutex_);
    zero_.wait(lock, [this] { return left_ == 0; });
    return failed_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable zero_;
  size_t left_;
  size_t failed_ = 0;
};

CallRequest request(const std::filesystem::path& script) {
  return {.script = script, .function = "slurm_switch_job_start", .arguments = {kJob}, .uid = getuid(),
          .gid = getgid(), .timeout = std::chrono::seconds(120)};
}

// slurm_switch_job_start() that first waits for a byte at `gate`.
std::string heldScript(const std::filesystem::path& gate, const std::filesystem::path& marks) {
  return "function slurm_switch_job_start(job)\n"
         "  local gate = io.open('" + gate.string() + "', 'r+') gate:setvbuf('no')\n"
         "  io.open('" + marks.string() + "/' .. job.sluid, 'w'):close()\n"
         "  gate:read(1)\n"
         "  return slurm.SUCCESS, {vni = job.job_id}\n"
         "end\n";
}

size_t entriesIn(const std::filesystem::path& folder) {
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    (void)entry;
    ++count;
  }
  return count;
}

bool answered(const CallReport& report) {
  return report.kind == CallReport::Kind::Reported && report.result.number == 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 200;
  const int burst = argc > 2 ? std::atoi(argv[2]) : 1000;
  // A scratch folder, removed at the end.
  std::string folder = (std::filesystem::temp_directory_path() / "bench-switch-call-XXXXXX").string();
  if (mkdtemp(folder.data()) == nullptr) return 1;
  std::filesystem::path script = std::filesystem::path(folder) / "switch.lua";
  std::ofstream(script) << kScript;

  CallRunner runner;
  std::vector<double> times;
  size_t failed = 0;
  for (int i = 0; i < calls; ++i) {
    Countdown one(1);
    auto began = Clock::now();
    runner.start(request(script), [&one](CallReport report) { one.done(answered(report)); });
    failed += one.wait();
    times.push_back(ms(Clock::now() - began));
  }
  std::sort(times.begin(), times.end());
  std::printf("one_call calls=%d median_ms=%.2f p99_ms=%.2f max_ms=%.2f failed=%zu\n", calls,
              times[times.size() / 2], times[std::min(times.size() - 1, times.size() * 99 / 100)], times.back(),
              failed);

  Countdown all(static_cast<size_t>(burst));
  auto began = Clock::now();
  for (int i = 0; i < burst; ++i) {
    runner.start(request(script), [&all](CallReport report) { all.done(answered(report)); });
  }
  auto started = Clock::now();
  size_t burstFailed = all.wait();
  auto ended = Clock::now();
  std::printf("burst calls=%d queue_all_ms=%.1f all_reported_ms=%.0f per_call_ms=%.2f failed=%zu\n", burst,
              ms(started - began), ms(ended - began), ms(ended - began) / burst, burstFailed);

  auto gate = std::filesystem::path(folder) / "gate";
  auto marks = std::filesystem::path(folder) / "running";
  std::filesystem::create_directory(marks);
  mkfifo(gate.c_str(), 0600);
  auto held = std::filesystem::path(folder) / "held.lua";
  std::ofstream(held) << heldScript(gate, marks);
  Countdown released(static_cast<size_t>(burst));
  began = Clock::now();
  for (int i = 0; i < burst; ++i) {
    CallRequest call = request(held);
    call.arguments = {R"({"job_id": )" + std::to_string(i) + R"(, "sluid": "s)" + std::to_string(i) + "\"}"};
    runner.start(std::move(call), [&released](CallReport report) { released.done(answered(report)); });
  }
  while (entriesIn(marks) < static_cast<size_t>(burst)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  auto allRunning = Clock::now();
  size_t descriptors = entriesIn("/proc/self/fd");
  int opened = open(gate.c_str(), O_RDWR | O_CLOEXEC);
  std::string bytes(static_cast<size_t>(burst), 'g');
  auto releasedAt = Clock::now();
  if (opened < 0 || write(opened, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) return 1;
  size_t heldFailed = released.wait();
  auto heldEnded = Clock::now();
  close(opened);
  std::printf("in_flight calls=%d all_running_ms=%.0f descriptors=%zu release_to_all_reported_ms=%.0f failed=%zu\n",
              burst, ms(allRunning - began), descriptors, ms(heldEnded - releasedAt), heldFailed);

  std::filesystem::remove_all(folder);
  return failed + burstFailed + heldFailed == 0 ? 0 : 1;
}
