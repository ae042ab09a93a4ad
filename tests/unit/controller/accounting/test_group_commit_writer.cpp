// GroupCommitWriter with a fake write: what is queued while a batch is
// written goes in the next batch, whole; every callback gets its batch's
// outcome; refused when not running; stop() writes what is queued first.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "controller/accounting/group_commit_writer.h"

using gantry::ErrorCode;
using gantry::Status;
using gantry::accounting::GroupCommitWriter;

namespace {

// Records the batches it is given; the first write waits until released,
// so a test can queue behind it.
struct FakeWrite {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::vector<int>> batches;
  bool firstStarted = false;
  bool released = false;
  Status outcome = gantry::okStatus();

  Status operator()(const std::vector<int>& batch) {
    std::unique_lock lock(mutex);
    if (batches.empty()) {
      firstStarted = true;
      changed.notify_all();
      changed.wait(lock, [this] { return released; });
    }
    batches.push_back(batch);
    return outcome;
  }
  void waitForFirst() {
    std::unique_lock lock(mutex);
    changed.wait(lock, [this] { return firstStarted; });
  }
  void release() {
    std::lock_guard lock(mutex);
    released = true;
    changed.notify_all();
  }
};

}  // namespace

TEST_CASE("group commit: what is queued while a batch is written is written next, in one batch, in order") {
  FakeWrite fake;
  GroupCommitWriter<int> writer([&](const std::vector<int>& batch) { return fake(batch); });
  writer.start();
  REQUIRE(writer.enqueue(1, {}));
  fake.waitForFirst();
  for (int item = 2; item <= 6; ++item) REQUIRE(writer.enqueue(item, {}));
  fake.release();
  writer.flush();
  CHECK(fake.batches == std::vector<std::vector<int>>{{1}, {2, 3, 4, 5, 6}});
}

TEST_CASE("group commit: every callback gets its batch's outcome, and flush() waits for the callbacks") {
  FakeWrite fake;
  fake.released = true;
  fake.outcome = gantry::Error{ErrorCode::Unavailable, "disk gone"};
  GroupCommitWriter<int> writer([&](const std::vector<int>& batch) { return fake(batch); });
  writer.start();
  std::atomic<int> failed{0};
  for (int item = 0; item < 40; ++item) {
    REQUIRE(writer.enqueue(item, [&](const Status& status) {
      if (!status.ok() && status.error() == "disk gone") ++failed;
    }));
  }
  writer.flush();
  CHECK(failed == 40);
}

TEST_CASE("group commit: refused before start() and after stop(); stop() writes what is queued first") {
  FakeWrite fake;
  GroupCommitWriter<int> writer([&](const std::vector<int>& batch) { return fake(batch); });
  CHECK_FALSE(writer.enqueue(1, {}));
  writer.start();
  REQUIRE(writer.enqueue(2, {}));
  fake.waitForFirst();
  REQUIRE(writer.enqueue(3, {}));
  std::thread releaser([&] { fake.release(); });
  writer.stop();
  releaser.join();
  CHECK(fake.batches == std::vector<std::vector<int>>{{2}, {3}});
  CHECK_FALSE(writer.enqueue(4, {}));
  writer.start();  // a stopped writer starts again
  CHECK(writer.enqueue(5, {}));
  writer.flush();
  CHECK(fake.batches.back() == std::vector<int>{5});
}

// A window far longer than any test: only flush(), stop() or a full batch
// can end it.
constexpr std::chrono::hours kForever{1};

TEST_CASE("group commit: items queued within the gather window share one batch; flush() ends the window") {
  FakeWrite fake;
  fake.released = true;
  GroupCommitWriter<int> writer([&](const std::vector<int>& batch) { return fake(batch); },
                                std::chrono::duration_cast<std::chrono::milliseconds>(kForever));
  writer.start();
  for (int item = 1; item <= 5; ++item) {
    REQUIRE(writer.enqueue(item, {}));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  writer.flush();
  CHECK(fake.batches == std::vector<std::vector<int>>{{1, 2, 3, 4, 5}});
}

TEST_CASE("group commit: a full batch and stop() do not wait for the gather window") {
  FakeWrite fake;
  fake.released = true;
  GroupCommitWriter<int> writer([&](const std::vector<int>& batch) { return fake(batch); },
                                std::chrono::duration_cast<std::chrono::milliseconds>(kForever));
  writer.start();
  std::mutex mutex;
  std::condition_variable changed;
  size_t written = 0;
  const size_t full = GroupCommitWriter<int>::kGatherMost;
  for (size_t item = 0; item < full; ++item) {
    REQUIRE(writer.enqueue(static_cast<int>(item), [&](const Status&) {
      std::lock_guard lock(mutex);
      ++written;
      changed.notify_all();
    }));
  }
  {
    // Liveness only: the full batch is written although nobody flushes.
    std::unique_lock lock(mutex);
    REQUIRE(changed.wait_for(lock, std::chrono::seconds(60), [&] { return written == full; }));
  }
  REQUIRE(writer.enqueue(-1, {}));
  writer.stop();
  CHECK(fake.batches.back() == std::vector<int>{-1});
}
