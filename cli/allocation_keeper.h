// While salloc or srun holds an allocation it calls KeepAllocation every
// couple of seconds, so that the controller ends the allocation when the
// client dies without giving it back (kill -9, a lost host). A thread of
// its own does it; the calls stop when the keeper is destroyed.
//
// Threads: start() and the destructor are called by the owner's thread;
// the calls run on the keeper's thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "cli/controller_client.h"

namespace gantry::cli {

// How often the client says it is still there; the controller gives up
// after five missed calls (CoreOptions::allocationClientTimeoutSeconds).
constexpr std::chrono::seconds kKeepAllocationInterval{2};

class AllocationKeeper {
 public:
  explicit AllocationKeeper(ControllerClient client) : client_(std::move(client)) {}
  ~AllocationKeeper();
  AllocationKeeper(const AllocationKeeper&) = delete;
  AllocationKeeper& operator=(const AllocationKeeper&) = delete;

  // Starts calling for `jobId` (once, right after the submission).
  void start(uint64_t jobId);

 private:
  void loop(uint64_t jobId);

  ControllerClient client_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace gantry::cli
