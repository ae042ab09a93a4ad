// ControllerCore's per-device drains as they follow from the node's agent
// and its configuration: a registration reconciled with the saved device
// orders, MaxDrainedTres, and what a changed record sets off. The rules are
// controller/drain's; here they are fed from the node record and their
// outcome applied to it.
#include "controller/core/controller_core.h"

#include <algorithm>
#include <spdlog/spdlog.h>

#include "common/gres/shared.h"
#include "controller/core/select_info.h"
#include "controller/drain/device_order.h"
#include "controller/drain/drain_limits.h"
#include "controller/drain/drained_tres_text.h"

namespace gantry::core {

namespace {

// The configured GRES names whose devices have an identity (device files):
// gpu, nic, ... A name the agent reports nothing of is one when it is gpu or
// when the record already knows devices of it (a driver that failed to load).
std::vector<std::string> deviceGresOf(const NodeRecord& node, const v1::RegisterRequest& request) {
  std::vector<std::string> names;
  for (const auto& configured : node.conf.gres) {
    const std::string& name = configured.name;
    if (gres::isSharedGresName(name) || std::find(names.begin(), names.end(), name) != names.end()) continue;
    bool reported = false, allDevices = true;
    for (const auto& record : request.hardware().gres()) {
      if (record.name() != name) continue;
      reported = true;
      allDevices = allDevices && record.files_size() > 0;
    }
    bool known = drain::savedOrderOf(node.drainedTres, name) != nullptr ||
                 std::any_of(node.drainedTres.devices.begin(), node.drainedTres.devices.end(),
                             [&](const drain::DeviceDrain& d) { return d.gres == name; });
    if (reported ? allDevices : (name == "gpu" || known)) names.push_back(name);
  }
  return names;
}

}  // namespace

ControllerCore::ReconciledDrains ControllerCore::reconcileRegistration(const NodeRecord& node,
                                                                       const v1::RegisterRequest& request) const {
  ReconciledDrains out{.record = node.drainedTres, .problems = {}, .clearsOrderMismatch = false, .gres = {}};
  drain::OrderOptions options{.drainAbsentGres = conf_.drainAbsentGres};
  // A device GRES gantry.conf no longer gives the node: its order and drains go.
  auto configured = [&](const std::string& name) {
    return std::any_of(node.conf.gres.begin(), node.conf.gres.end(),
                       [&](const config::GresCount& item) { return item.name == name; });
  };
  std::erase_if(out.record.savedOrders, [&](const drain::SavedOrder& order) { return !configured(order.gres); });
  std::erase_if(out.record.devices, [&](const drain::DeviceDrain& d) { return !configured(d.gres); });
  std::erase_if(out.record.orderMismatch, [&](const std::string& gres) { return !configured(gres); });
  for (const std::string& name : deviceGresOf(node, request)) {
    drain::GresRegistration registration{.gres = name, .configuredCount = 0, .devices = {}};
    for (const auto& configured : node.conf.gres) {
      if (configured.name == name) registration.configuredCount += configured.count;
    }
    for (const auto& record : request.hardware().gres()) {
      if (record.name() != name) continue;
      registration.devices.push_back(
          drain::ReportedDevice{.type = record.type(), .uuid = record.uuid(), .count = record.count()});
    }
    drain::OrderOutcome outcome = drain::reconcileDeviceOrder(out.record, registration, options);
    out.record = std::move(outcome.record);
    if (outcome.effect == drain::NodeEffect::Drain || outcome.effect == drain::NodeEffect::Invalid) {
      if (std::find(out.problems.begin(), out.problems.end(), outcome.reason) == out.problems.end()) {
        out.problems.push_back(outcome.reason);
      }
    }
    out.gres.push_back(name);
  }
  out.clearsOrderMismatch = !node.drainedTres.orderMismatch.empty() && out.record.orderMismatch.empty();
  return out;
}

void ControllerCore::drainedTresChanged(NodeRecord& node, const drain::DrainedTres& before, bool layoutChanged) {
  // Past MaxDrainedTres a node in service is drained; a node an operator
  // took out (DRAIN, DOWN) keeps their state and reason.
  if (auto past = drain::limitDrainReason(node.drainedTres, node.conf.maxDrainedTresLimits)) {
    if (node.admin == NodeAdminState::None) {
      spdlog::warn("node {}: {}", node.conf.name, *past);
      applyNode(node, node_event::Drain{*past});
    }
  }
  if (node.drainedTres == before && !layoutChanged) return;
  // A node with no reason of its own shows its drains as its reason (sinfo
  // -R), from the time they last changed.
  if (node.drainedTres != before && node.admin == NodeAdminState::None && node.registrationErrors.empty()) {
    node.reasonTime = now();
  }
  executor_.refreshNode(node, layoutChanged);
  executor_.persistNode(node);
  if (node.drainedTres != before) {
    recordNodeEvents(node);
    if (options_.drainedTresChanged) options_.drainedTresChanged(node.conf.name, node.drainedTres);
  }
  requestSchedule();
}

std::vector<std::string> ControllerCore::degradedNodesOf(const select::PartitionView& view) const {
  std::vector<std::string> degraded;
  for (int index : view.nodes) {
    const NodeRecord* node = state_.findNode(state_.cluster.node(index).name);
    if (node == nullptr || !node->degraded() || !node->schedulable()) continue;
    degraded.push_back(node->conf.name + " " + drain::formatDrainedTres(node->drainedTres));
  }
  return degraded;
}

std::string ControllerCore::drainedWaitReason(const select::Request& request, const select::PartitionView& view,
                                              const std::vector<std::string>& degradedNodes) const {
  if (degradedNodes.empty()) return "";
  if (state_.cluster.canEverRun(request, view).verdict != select::Verdict::Placed) return "";
  if (state_.cluster.canEverRunDrained(request, view).verdict == select::Verdict::Placed) return "";
  std::vector<std::string> degraded = degradedNodes;
  if (degraded.size() > 3) {
    degraded.resize(3);
    degraded.push_back("...");
  }
  std::string text = "Resources (drained: ";
  for (size_t i = 0; i < degraded.size(); ++i) text += (i > 0 ? "; " : "") + degraded[i];
  return text + ")";
}

}  // namespace gantry::core
