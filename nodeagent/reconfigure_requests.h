// The node agent re-reads its configuration in one place only: the signal
// thread of main.cpp, on SIGHUP. The controller's Reconfigure call (sent
// for `scontrol reconfigure`) must take exactly that path, so the service
// raises SIGHUP at its own process and waits here for the outcome of a
// reload that began after its request.
//
// Threads: the signal thread calls begin()/finish(); any number of RPC
// threads call requestAndWait(). One mutex guards the counters.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "common/util/result.h"

namespace gantry::agent {

class ReconfigureRequests {
 public:
  // `raise` starts a reload (the agent sends itself SIGHUP); tests pass
  // their own.
  explicit ReconfigureRequests(std::function<void()> raise);

  // Asks for a reload and waits up to `timeout` for one that began after
  // this call. Its failure (the "Resuming operation, reconfigure failed."
  // message) comes back as a NotNow error; Unavailable when no reload
  // finished in time.
  Status requestAndWait(std::chrono::milliseconds timeout);

  // The signal thread, around every reload: begin() when it starts,
  // finish() with the ticket and the failure message ("" when the new
  // configuration was applied) when it ends.
  uint64_t begin();
  void finish(uint64_t ticket, std::string failure);

 private:
  std::function<void()> raise_;
  std::mutex mutex_;
  std::condition_variable finished_;
  uint64_t requested_ = 0;  // requests made so far
  uint64_t completed_ = 0;  // the newest request a finished reload covered
  std::string lastFailure_;
};

}  // namespace gantry::agent
