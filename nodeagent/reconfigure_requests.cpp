#include "nodeagent/reconfigure_requests.h"

namespace gantry::agent {

ReconfigureRequests::ReconfigureRequests(std::function<void()> raise) : raise_(std::move(raise)) {}

Status ReconfigureRequests::requestAndWait(std::chrono::milliseconds timeout) {
  uint64_t ticket = 0;
  {
    std::lock_guard lock(mutex_);
    ticket = ++requested_;
  }
  // Several signals may merge into one reload; it covers every request
  // made before it began, so no request waits for ever.
  raise_();
  std::unique_lock lock(mutex_);
  if (!finished_.wait_for(lock, timeout, [&] { return completed_ >= ticket; })) {
    return Error{ErrorCode::Unavailable, "the agent did not finish re-reading its configuration in time"};
  }
  if (!lastFailure_.empty()) return Error{ErrorCode::NotNow, lastFailure_};
  return okStatus();
}

uint64_t ReconfigureRequests::begin() {
  std::lock_guard lock(mutex_);
  return requested_;
}

void ReconfigureRequests::finish(uint64_t ticket, std::string failure) {
  {
    std::lock_guard lock(mutex_);
    if (ticket < completed_) return;  // an older reload ending late says nothing new
    completed_ = ticket;
    lastFailure_ = std::move(failure);
  }
  finished_.notify_all();
}

}  // namespace gantry::agent
