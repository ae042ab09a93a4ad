#include "controller/config_reload.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <future>

#include "common/config/config_set.h"

namespace gantry::ctl {
namespace {

constexpr const char* kFailed = "Resuming operation, reconfigure failed.";

// The core always answers; agents are bounded by the gateway's deadline
// (20 s), so this only guards against a core that is shutting down.
constexpr auto kAnswerTimeout = std::chrono::seconds(90);

template <typename T, typename Start>
Result<T> awaitCore(Start start) {
  auto promise = std::make_shared<std::promise<Result<T>>>();
  auto future = promise->get_future();
  start([promise](Result<T> result) { promise->set_value(std::move(result)); });
  if (future.wait_for(kAnswerTimeout) != std::future_status::ready) {
    return Error{ErrorCode::Unavailable, "the controller did not answer in time"};
  }
  return future.get();
}

}  // namespace

Result<std::vector<std::string>> ConfigReloader::reload() {
  std::lock_guard one(running_);
  auto fresh = config::loadConfigSet(confDir_);
  if (!fresh) {
    spdlog::error("{}\n{}", kFailed, fresh.error());
    return Error{ErrorCode::Invalid, std::string(kFailed) + "\n" + fresh.error()};
  }
  for (const auto& warning : fresh->warnings) spdlog::warn("{}", warning.toString());
  auto applied = awaitCore<Ok>([&](auto reply) { core_.reconfigure(std::move(fresh->gantry), std::move(reply)); });
  if (!applied) {
    spdlog::error("{} {}", kFailed, applied.error());
    return Error{applied.errorCode(), std::string(kFailed) + " " + applied.error()};
  }
  auto nodes = awaitCore<std::vector<std::string>>([&](auto reply) { core_.reconfigureNodes(std::move(reply)); });
  if (!nodes) return nodes.failure();
  for (const auto& problem : *nodes) spdlog::error("reconfigure: {}", problem);
  return nodes;
}

}  // namespace gantry::ctl
