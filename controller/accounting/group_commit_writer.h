// The queue behind a group-committing store. Callers queue items and return
// at once; one writer thread takes everything queued since its last write,
// hands it to `write` as one batch (the store makes it one transaction), and
// then runs each item's callback with the outcome of that batch. So many
// small calls share one COMMIT (one fsync) while the writer is busy, and a
// caller learns when its own items are durable.
//
// With a gather window, the writer waits that long after the first item of
// a batch before writing it (unless flush() or stop() asks, or kGatherMost
// items are queued), so a busy controller costs the accounting database a
// few commits a second, not one per state change: on a shared disk every
// commit's fsync also delays the controller's own state commits, which
// answer submissions.
//
// Both accounting backends (SQLite and PostgreSQL) use it; the store
// supplies only `write`.
//
// Threads: enqueue(), flush(), start() and stop() may be called from any
// thread. `write` and the callbacks run on the writer thread, one batch at a
// time; they must not call flush() or stop() (that would wait on itself).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include "common/util/result.h"

namespace gantry::accounting {

// The gather window of both accounting backends: records reach sacct at
// most this much later, and the database sees at most ten commits a second
// while the controller is busy.
inline constexpr std::chrono::milliseconds kAccountingGatherWindow{100};

template <typename Item>
class GroupCommitWriter {
 public:
  using Callback = std::function<void(const Status&)>;
  // Writes the whole batch or none of it; the status goes to every item's
  // callback.
  using WriteBatch = std::function<Status(const std::vector<Item>&)>;

  static constexpr size_t kGatherMost = 4096;
  static constexpr int kWriterNice = 10;  // about a tenth of a busy core's time

  explicit GroupCommitWriter(WriteBatch write, std::chrono::milliseconds gather = std::chrono::milliseconds(0))
      : write_(std::move(write)), gather_(gather) {}
  ~GroupCommitWriter() { stop(); }
  GroupCommitWriter(const GroupCommitWriter&) = delete;
  GroupCommitWriter& operator=(const GroupCommitWriter&) = delete;

  // Starts the writer thread; a stopped writer may be started again.
  void start() {
    std::lock_guard lock(mutex_);
    if (thread_.joinable()) return;
    stopping_ = false;
    thread_ = std::thread([this] { run(); });
  }

  // False, and nothing queued, when the writer is not running (never
  // started, or stopping).
  bool enqueue(Item item, Callback done) {
    std::lock_guard lock(mutex_);
    if (!thread_.joinable() || stopping_) return false;
    items_.push_back(std::move(item));
    callbacks_.push_back(std::move(done));
    // The writer waits for a first item, then (gathering) for kGatherMost:
    // waking it for any other item would only cost both threads a switch.
    if (items_.size() == 1 || items_.size() == kGatherMost) wake_.notify_one();
    return true;
  }

  // Blocks until everything queued before the call is written and its
  // callbacks have run.
  void flush() {
    std::unique_lock lock(mutex_);
    ++flushing_;
    wake_.notify_one();
    drained_.wait(lock, [this] { return items_.empty() && !writing_; });
    --flushing_;
  }

  // Writes what is queued, then ends the thread. Later enqueue() calls are
  // refused until start().
  void stop() {
    std::thread finished;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      wake_.notify_one();
      finished.swap(thread_);
    }
    if (finished.joinable()) finished.join();
  }

 private:
  void run() {
    // Accounting is background work: when the cores are busy the core's
    // strand and the state store (which answers submissions) go first, and
    // the records wait here until there is time for them.
    setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kWriterNice);
    for (;;) {
      std::vector<Item> items;
      std::vector<Callback> callbacks;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !items_.empty(); });
        if (items_.empty() && stopping_) return;
        if (gather_.count() > 0) {
          wake_.wait_for(lock, gather_, [this] { return stopping_ || flushing_ > 0 || items_.size() >= kGatherMost; });
        }
        items.assign(std::make_move_iterator(items_.begin()), std::make_move_iterator(items_.end()));
        callbacks.assign(std::make_move_iterator(callbacks_.begin()), std::make_move_iterator(callbacks_.end()));
        items_.clear();
        callbacks_.clear();
        writing_ = true;
      }
      Status status = write_(items);
      for (auto& done : callbacks) {
        if (done) done(status);
      }
      {
        std::lock_guard lock(mutex_);
        writing_ = false;
        if (items_.empty()) drained_.notify_all();
      }
    }
  }

  WriteBatch write_;
  std::chrono::milliseconds gather_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable drained_;
  std::deque<Item> items_;
  std::deque<Callback> callbacks_;
  bool stopping_ = false;
  bool writing_ = false;
  int flushing_ = 0;  // callers waiting in flush(): write without gathering
  std::thread thread_;
};

}  // namespace gantry::accounting
