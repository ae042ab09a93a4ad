// Injectable timers. Code with periodic or delayed work (the controller
// core's ticks, gang rotation, switch timeouts) asks a TimerQueue instead of
// arming Asio timers itself, so tests drive it in simulated time: the
// ManualTimerQueue runs what is due when the test moves its ManualClock.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <utility>

#include "common/util/clock.h"

namespace gantry {

class TimerQueue {
 public:
  using Callback = std::function<void()>;
  using TimerId = uint64_t;
  virtual ~TimerQueue() = default;
  // Runs `callback` once, `delay` from now. Never runs it from inside after().
  virtual TimerId after(Duration delay, Callback callback) = 0;
  // A cancelled timer's callback does not run; unknown ids are ignored.
  virtual void cancel(TimerId id) = 0;
};

// Real time: each timer is an Asio steady_timer whose callback runs on the
// given executor (a strand keeps the owner single-threaded).
class AsioTimerQueue final : public TimerQueue {
 public:
  explicit AsioTimerQueue(boost::asio::any_io_executor executor) : executor_(std::move(executor)) {}

  TimerId after(Duration delay, Callback callback) override {
    TimerId id = nextId_++;
    auto timer = std::make_shared<boost::asio::steady_timer>(executor_);
    timer->expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(delay));
    timers_[id] = timer;
    timer->async_wait([this, id, timer, callback = std::move(callback)](const boost::system::error_code& ec) {
      if (ec) return;
      timers_.erase(id);
      callback();
    });
    return id;
  }

  void cancel(TimerId id) override {
    auto found = timers_.find(id);
    if (found == timers_.end()) return;
    found->second->cancel();
    timers_.erase(found);
  }

 private:
  boost::asio::any_io_executor executor_;
  TimerId nextId_ = 1;
  std::map<TimerId, std::shared_ptr<boost::asio::steady_timer>> timers_;
};

// Simulated time: nothing runs until advance() moves the clock past a
// timer's due time; then due timers run in due order, each with the clock
// set to its own due time, including timers they arm themselves.
class ManualTimerQueue final : public TimerQueue {
 public:
  explicit ManualTimerQueue(ManualClock& clock) : clock_(clock) {}

  TimerId after(Duration delay, Callback callback) override {
    TimerId id = nextId_++;
    due_.emplace(Key{clock_.now() + delay, id}, std::move(callback));
    return id;
  }

  void cancel(TimerId id) override {
    for (auto it = due_.begin(); it != due_.end(); ++it) {
      if (it->first.id == id) {
        due_.erase(it);
        return;
      }
    }
  }

  // Moves the clock forward by `d`, running every timer due on the way.
  void advance(Duration d) {
    TimePoint target = clock_.now() + d;
    while (!due_.empty() && due_.begin()->first.when <= target) {
      auto first = due_.begin();
      Callback callback = std::move(first->second);
      if (first->first.when > clock_.now()) clock_.set(first->first.when);
      due_.erase(first);
      callback();
    }
    clock_.set(target);
  }
  // Runs the timers already due without moving the clock.
  void runDue() { advance(Duration::zero()); }
  size_t pending() const { return due_.size(); }

 private:
  struct Key {
    TimePoint when;
    TimerId id;
    bool operator<(const Key& other) const { return when != other.when ? when < other.when : id < other.id; }
  };
  ManualClock& clock_;
  TimerId nextId_ = 1;
  std::map<Key, Callback> due_;
};

}  // namespace gantry
