#include "controller/core/node_accounting.h"

#include <algorithm>
#include <set>

#include "controller/core/accounting_view.h"
#include "controller/drain/drained_tres_text.h"

namespace gantry::core {
namespace {

// What the node has, as its DOWN, DRAIN or FAIL event counts it.
std::string nodeTres(const NodeRecord& node, const accounting::TrackedTres& tracked) {
  std::map<std::string, uint64_t> counts{{"cpu", static_cast<uint64_t>(node.conf.cpus)},
                                         {"mem", node.conf.realMemoryMb}};
  for (const auto& gres : node.conf.gres) {
    std::string name = "gres/" + gres.name;
    if (accounting::drainedTresCounts(tracked, name)) counts[name] += gres.count;
    if (!gres.type.empty() && tracked.tracks(name + ":" + gres.type)) counts[name + ":" + gres.type] += gres.count;
  }
  return tresText(counts);
}

accounting::NodeEvent eventOf(const std::string& node, const std::string& state, std::string reason,
                              const std::string& user) {
  accounting::NodeEvent event;
  event.node = node;
  event.state = state;
  event.reason = std::move(reason);
  event.user = user;
  return event;
}

std::string joined(const std::set<std::string>& reasons) {
  std::string out;
  for (const auto& reason : reasons) {
    if (reason.empty()) continue;
    if (!out.empty()) out += ',';
    out += reason;
  }
  return out;
}

// The DEGRADED event: the drains that count, or nullopt when none does.
std::optional<accounting::NodeEvent> degradedEvent(const NodeRecord& node, const accounting::TrackedTres& tracked) {
  drain::DrainedTres counted;
  std::map<std::string, uint64_t> counts;
  std::set<std::string> reasons;
  for (const auto& device : node.drainedTres.devices) {
    std::string name = "gres/" + device.gres;
    std::string typed = device.type.empty() ? "" : name + ":" + device.type;
    bool untypedCounts = accounting::drainedTresCounts(tracked, name);
    bool typedCounts = !typed.empty() && tracked.tracks(typed);
    if (!untypedCounts && !typedCounts) continue;
    if (untypedCounts) counts[name] += 1;
    if (typedCounts) counts[typed] += 1;
    counted.devices.push_back(device);
    reasons.insert(device.reason);
  }
  for (const auto& cpu : node.drainedTres.cpus) {
    counts["cpu"] += 1;
    counted.cpus.push_back(cpu);
    reasons.insert(cpu.reason);
  }
  for (const auto& count : node.drainedTres.counts) {
    std::string name = count.tres == "mem" ? "mem" : count.tres;
    if (!accounting::drainedTresCounts(tracked, name)) continue;
    counts[name] += count.count;
    counted.counts.push_back(count);
    reasons.insert(count.reason);
  }
  if (counts.empty()) return std::nullopt;
  accounting::NodeEvent event = eventOf(node.conf.name, "DEGRADED", joined(reasons), "root");
  event.tres = tresText(counts);
  event.tresReference = drain::formatDrainedTres(counted);
  return event;
}

}  // namespace

std::optional<std::vector<accounting::NodeEvent>> wantedNodeEvents(const NodeRecord& node,
                                                                   const accounting::TrackedTres& tracked,
                                                                   const std::string& cluster) {
  std::vector<accounting::NodeEvent> wanted;
  std::string user = node.reasonUser.empty() ? "root" : node.reasonUser;
  const std::string& name = node.conf.name;
  if (node.admin == NodeAdminState::Down || node.admin == NodeAdminState::DownDrain) {
    wanted.push_back(eventOf(name, "DOWN", node.reason, user));
  } else if (node.notResponding) {
    wanted.push_back(eventOf(name, "DOWN", "Not responding", "root"));
  } else if (node.admin == NodeAdminState::Drain) {
    wanted.push_back(eventOf(name, "DRAIN", node.reason, user));
  } else if (!node.registrationErrors.empty()) {
    std::set<std::string> reasons(node.registrationErrors.begin(), node.registrationErrors.end());
    wanted.push_back(eventOf(name, "DRAIN", joined(reasons), "root"));
  } else if (node.admin == NodeAdminState::Fail) {
    // FAIL from the moment it is set, as DRAIN is, jobs still running or not.
    wanted.push_back(eventOf(name, "FAIL", node.reason, user));
  } else if (!node.registered) {
    return std::nullopt;
  }
  for (auto& event : wanted) event.tres = nodeTres(node, tracked);
  if (auto degraded = degradedEvent(node, tracked)) wanted.push_back(std::move(*degraded));
  for (auto& event : wanted) event.cluster = cluster;
  return wanted;
}

void NodeEventBook::adopt(const std::vector<accounting::NodeEvent>& open) {
  for (const auto& event : open) {
    if (event.endTime != 0) continue;
    open_[event.node].push_back(event);
    int64_t& last = lastStart_[event.node + "\n" + event.state];
    last = std::max(last, event.startTime);
  }
}

std::vector<accounting::NodeEvent> NodeEventBook::update(const std::string& node,
                                                         const std::vector<accounting::NodeEvent>& wanted,
                                                         int64_t now) {
  auto sameEvent = [](const accounting::NodeEvent& a, const accounting::NodeEvent& b) {
    return a.state == b.state && a.reason == b.reason && a.tres == b.tres && a.tresReference == b.tresReference &&
           a.user == b.user;
  };
  std::vector<accounting::NodeEvent>& open = open_[node];
  std::vector<accounting::NodeEvent> writes;
  std::vector<accounting::NodeEvent> kept;
  for (const auto& event : open) {
    bool stillWanted = std::any_of(wanted.begin(), wanted.end(), [&](const auto& w) { return sameEvent(event, w); });
    if (stillWanted) {
      kept.push_back(event);
      continue;
    }
    accounting::NodeEvent closed = event;
    closed.endTime = std::max(now, event.startTime);
    writes.push_back(std::move(closed));
  }
  for (const auto& want : wanted) {
    bool isOpen = std::any_of(kept.begin(), kept.end(), [&](const auto& e) { return sameEvent(e, want); });
    if (isOpen) continue;
    accounting::NodeEvent opened = want;
    // Two events of one node and state may not share a start (the store's
    // key): one closed and reopened within a second starts a second later.
    int64_t& last = lastStart_[node + "\n" + want.state];
    opened.startTime = std::max(now, last + 1);
    last = opened.startTime;
    writes.push_back(opened);
    kept.push_back(std::move(opened));
  }
  open = std::move(kept);
  return writes;
}

const std::vector<accounting::NodeEvent>& NodeEventBook::openOn(const std::string& node) const {
  static const std::vector<accounting::NodeEvent> kNone;
  auto it = open_.find(node);
  return it == open_.end() ? kNone : it->second;
}

}  // namespace gantry::core
