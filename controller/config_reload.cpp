#include "controller/config_reload.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <future>

#include "common/config/config_set.h"
#include "common/config/gres_conf.h"

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

std::map<std::string, std::string> gresConfDrains(const std::string& confDir, const config::GantryConf& conf) {
  std::vector<std::string> names;
  for (const auto& node : conf.nodes) names.push_back(node.name);
  auto problems = config::gresConfProblemsByNode(std::filesystem::path(confDir) / "gres.conf", names);
  for (auto& [node, text] : problems) {
    spdlog::error("node {}: gres.conf:\n{}", node, text);
    for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at)) text.replace(at, 1, "; ");
  }
  return problems;
}

Result<std::vector<std::string>> ConfigReloader::reload() {
  std::lock_guard one(running_);
  auto fresh = config::loadConfigSet(confDir_);
  if (!fresh) {
    spdlog::error("{}\n{}", kFailed, fresh.error());
    return Error{ErrorCode::Invalid, std::string(kFailed) + "\n" + fresh.error()};
  }
  for (const auto& warning : fresh->warnings) spdlog::warn("{}", warning.toString());
  auto drains = gresConfDrains(confDir_, fresh->gantry);
  auto applied = awaitCore<Ok>([&](auto reply) {
    if (askSwitchScript_) core_.reconfigure(std::move(fresh->gantry), askSwitchScript_(), std::move(reply));
    else core_.reconfigure(std::move(fresh->gantry), std::move(reply));
  });
  if (!applied) {
    spdlog::error("{} {}", kFailed, applied.error());
    return Error{applied.errorCode(), std::string(kFailed) + " " + applied.error()};
  }
  core_.drainForConfiguration(std::move(drains));  // after the nodes the file adds exist
  auto nodes = awaitCore<std::vector<std::string>>([&](auto reply) { core_.reconfigureNodes(std::move(reply)); });
  if (!nodes) return nodes.failure();
  for (const auto& problem : *nodes) spdlog::error("reconfigure: {}", problem);
  return nodes;
}

}  // namespace gantry::ctl
