// ReconfigureRequests (nodeagent/reconfigure_requests.cpp): the controller's
// Reconfigure call waits for the outcome of a reload on the agent's SIGHUP
// path that began after it asked. Here a thread plays the signal thread.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "nodeagent/reconfigure_requests.h"

using namespace gantry;

namespace {

// Every raise runs one reload on a thread of its own with `failure` as its
// outcome, as the agent's signal thread would.
struct FakeSignalThread {
  std::string failure;
  std::atomic<int> reloads{0};
  std::vector<std::thread> threads;
  agent::ReconfigureRequests requests{[this] {
    threads.emplace_back([this] {
      uint64_t ticket = requests.begin();
      ++reloads;
      requests.finish(ticket, failure);
    });
  }};
  ~FakeSignalThread() {
    for (auto& thread : threads) thread.join();
  }
};

}  // namespace

TEST_CASE("a failed reload comes back to the caller with its message", "[agent][reconfigure]") {
  FakeSignalThread agent;
  agent.failure = "Resuming operation, reconfigure failed.\ngres.conf:7: ChunkSizes=3,4: 4 is not a multiple of 3";
  auto answer = agent.requests.requestAndWait(std::chrono::seconds(5));
  REQUIRE_FALSE(answer.ok());
  CHECK(answer.errorCode() == ErrorCode::NotNow);
  CHECK(answer.error() == agent.failure);
  CHECK(agent.reloads == 1);
}

TEST_CASE("a good reload answers ok, and an older failure does not linger", "[agent][reconfigure]") {
  FakeSignalThread agent;
  agent.failure = "Resuming operation, reconfigure failed.\nbroken";
  REQUIRE_FALSE(agent.requests.requestAndWait(std::chrono::seconds(5)).ok());
  agent.failure = "";
  CHECK(agent.requests.requestAndWait(std::chrono::seconds(5)).ok());
}

TEST_CASE("a reload that began before the request does not answer it", "[agent][reconfigure]") {
  bool raised = false;
  agent::ReconfigureRequests requests([&] { raised = true; });
  uint64_t earlier = requests.begin();  // a SIGHUP from the administrator, already under way
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    requests.finish(earlier, "");
  });
  auto answer = requests.requestAndWait(std::chrono::milliseconds(300));
  late.join();
  CHECK(raised);
  REQUIRE_FALSE(answer.ok());
  CHECK(answer.errorCode() == ErrorCode::Unavailable);
}
