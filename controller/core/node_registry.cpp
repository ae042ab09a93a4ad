// ControllerCore's nodes: their state and views, and what registrations and
// heartbeats from the agents change.
#include "controller/core/controller_core.h"

#include <algorithm>
#include <map>
#include <spdlog/spdlog.h>

#include "common/gres/index_list.h"
#include "common/gres/shared.h"
#include "controller/drain/registration_check.h"

namespace gantry::core {

// ---------------------------------------------------------------- nodes

ControllerCore::NodeEntry* ControllerCore::findNode(const std::string& name) {
  auto found = nodeIndex_.find(name);
  return found == nodeIndex_.end() ? nullptr : &nodes_[found->second];
}

select::NodeInfo ControllerCore::selectInfoFor(const NodeEntry& node) const {
  select::NodeInfo info;
  info.name = node.conf.name;
  info.sockets = node.conf.sockets;
  info.coresPerSocket = node.conf.coresPerSocket;
  info.threadsPerCore = node.conf.threadsPerCore;
  info.realMemoryMb = node.conf.realMemoryMb;
  for (const auto& device : node.hardware.gres()) {
    // Shared GRES (shard, mps) are not devices: each record offers shares
    // of the GPU with the same device file, which comes earlier in device
    // order. Count-only GRES have no device identity: selection counts them.
    bool shared = device.name() == "shard" || device.name() == "mps";
    if (shared && device.files_size() > 0) {
      auto gpu = std::find_if(info.devices.begin(), info.devices.end(), [&](const select::DeviceInfo& d) {
        return !d.files.empty() && d.files.front() == device.files(0);
      });
      if (gpu != info.devices.end()) {
        gpu->shared.push_back(gres::SharedCount{.name = device.name(), .count = device.count()});
        continue;
      }
    }
    if (shared || (device.files_size() == 0 && device.count() != 1)) {
      // Typed and no_consume count-only GRES keep what gantry.conf says of them.
      bool noConsume = false;
      for (const auto& configured : node.conf.gres) {
        if (configured.name == device.name() && configured.type == device.type()) noConsume = configured.noConsume;
      }
      auto counted = std::find_if(info.countedGres.begin(), info.countedGres.end(), [&](const auto& entry) {
        return entry.name == device.name() && entry.type == device.type();
      });
      if (counted == info.countedGres.end()) {
        info.countedGres.push_back(gres::CountedGres{
            .name = device.name(), .type = device.type(), .count = device.count(), .noConsume = noConsume});
      } else {
        counted->count += device.count();
      }
      continue;
    }
    // One chunk layout per name and Type, from its first record; records
    // that disagree drained the node at registration.
    if (device.chunk_sizes_size() > 0) {
      bool known = std::any_of(info.chunks.begin(), info.chunks.end(), [&](const select::ChunkLayout& layout) {
        return layout.name == device.name() && layout.type == device.type();
      });
      if (!known) {
        info.chunks.push_back(select::ChunkLayout{
            .type = device.type(),
            .sizes = {device.chunk_sizes().begin(), device.chunk_sizes().end()},
            .order = {device.chunk_order().begin(), device.chunk_order().end()},
            .name = device.name()});
      }
    }
    select::DeviceInfo d;
    d.name = device.name();
    d.type = device.type();
    d.files.assign(device.files().begin(), device.files().end());
    d.cores.assign(device.cores().begin(), device.cores().end());
    d.links.assign(device.links().begin(), device.links().end());
    d.uuid = device.uuid();
    for (const auto& flag : device.flags()) {
      if (flag == "explicit") d.explicitOnly = true;
    }
    info.devices.push_back(std::move(d));
  }
  return info;
}

bool ControllerCore::nodeSchedulable(const NodeEntry& node) const {
  return node.registered && !node.notResponding && node.adminState.empty() &&
         node.registrationErrors.empty();
}

void ControllerCore::refreshSelectAvailability(NodeEntry& node) {
  cluster_.setAvailable(node.selectIndex, nodeSchedulable(node));
}

std::string ControllerCore::nodeStateText(const NodeEntry& node) const {
  int totalCpus = node.conf.cpus;
  std::string base;
  if (!node.registered) {
    base = node.notResponding ? "DOWN" : "UNKNOWN";
  } else if (node.notResponding || node.adminState == "DOWN") {
    base = "DOWN";
  } else if (node.allocCpus == 0 && node.jobs.empty()) {
    base = "IDLE";
  } else if (node.allocCpus >= totalCpus) {
    base = "ALLOCATED";
  } else {
    base = "MIXED";
  }
  std::string text = base;
  if (node.adminState == "DRAIN" || !node.registrationErrors.empty()) text += "+DRAIN";
  if (node.notResponding) text += "+NOT_RESPONDING";
  return text;
}

AgentAddress ControllerCore::addressOf(const NodeEntry& node) const {
  return AgentAddress{.node = node.conf.name, .addr = node.addr, .port = node.port};
}

v1::Node ControllerCore::nodeView(const NodeEntry& node) const {
  v1::Node view;
  view.set_name(node.conf.name);
  view.set_addr(node.addr);
  view.set_port(node.port);
  view.set_state(nodeStateText(node));
  std::string reason = node.reason;
  if (!node.registrationErrors.empty()) {
    reason.clear();
    for (const auto& error : node.registrationErrors) {
      if (!reason.empty()) reason += "; ";
      reason += error;
    }
  }
  if (node.notResponding && reason.empty()) reason = "Not responding";
  view.set_reason(reason);
  view.set_reason_time(node.reasonTime);
  view.set_reason_user(node.reasonUser);
  view.set_cpus(node.conf.cpus);
  view.set_boards(node.conf.boards);
  view.set_sockets(node.conf.sockets);
  view.set_cores_per_socket(node.conf.coresPerSocket);
  view.set_threads_per_core(node.conf.threadsPerCore);
  view.set_real_memory_mb(node.conf.realMemoryMb);
  view.set_alloc_cpus(node.allocCpus);
  view.set_alloc_memory_mb(node.allocMemoryMb);
  view.set_last_heartbeat(node.lastHeartbeat);
  std::string gres;
  for (const auto& g : node.conf.gres) {
    if (!gres.empty()) gres += ",";
    gres += g.name;
    if (!g.type.empty()) gres += ":" + g.type;
    gres += ":" + std::to_string(g.count);
  }
  view.set_gres(gres.empty() ? "(null)" : gres);
  for (const auto& feature : node.conf.features) view.add_features(feature);
  for (const auto& partition : conf_.partitions) {
    for (const auto& member : partition.nodes) {
      if (member == node.conf.name) {
        view.add_partitions(partition.name);
        break;
      }
    }
  }
  view.set_gres_used(cluster_.gresUsed(node.selectIndex));
  // Registered hardware for `scontrol show node -d`.
  view.set_gres_chunks(select::formatNodeGresChunks(selectInfoFor(node)));
  std::map<std::string, int> nextIndex;
  for (const auto& device : node.hardware.gres()) {
    std::string line = device.name() + (device.type().empty() ? "" : ":" + device.type());
    if (device.files_size() > 0 && device.name() != "shard" && device.name() != "mps") {
      line += " Index=" + std::to_string(nextIndex[device.name()]++);
    } else {
      line += " Count=" + std::to_string(device.count());
    }
    if (device.files_size() > 0) {
      line += " File=";
      for (int i = 0; i < device.files_size(); ++i) line += (i > 0 ? "," : "") + device.files(i);
    }
    if (device.cores_size() > 0) line += " Cores=" + gres::formatIndexList({device.cores().begin(), device.cores().end()});
    if (device.links_size() > 0) {
      line += " Links=";
      for (int i = 0; i < device.links_size(); ++i) line += (i > 0 ? "," : "") + std::to_string(device.links(i));
    }
    if (!device.uuid().empty()) line += " UUID=" + device.uuid();
    view.add_gres_devices(line);
  }
  return view;
}

// ---------------------------------------------------------------- agents

void ControllerCore::registerNode(v1::RegisterRequest request, Reply<v1::RegisterResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    NodeEntry* node = findNode(request.node_name());
    if (node == nullptr) {
      return reply(Error{"node " + request.node_name() + " is not in gantry.conf"});
    }
    node->registered = true;
    node->notResponding = false;
    node->lastHeartbeat = now();
    if (!request.addr().empty()) node->addr = request.addr();
    if (request.port() != 0) node->port = request.port();
    node->hardware = request.hardware();
    // GRES against gantry.conf (short counts, chunk layouts) plus what the
    // agent found wrong itself. A bad registration drains the node with the
    // reasons; a good one leaves an earlier drain in place, because the spec
    // returns such a node only through `scontrol update State=RESUME`
    // (which clears registrationErrors; a still-bad node drains again).
    drain::RegistrationInput gresCheck{.configured = node->conf.gres,
                                       .configOverrides = conf_.configOverrides,
                                       .registered = {},
                                       .agentErrors = {request.errors().begin(), request.errors().end()}};
    for (const auto& device : request.hardware().gres()) {
      gresCheck.registered.push_back(drain::RegisteredGres{
          .name = device.name(),
          .type = device.type(),
          .files = device.files_size(),
          .count = device.count(),
          .chunkSizes = {device.chunk_sizes().begin(), device.chunk_sizes().end()},
          .chunkOrder = {device.chunk_order().begin(), device.chunk_order().end()}});
    }
    std::vector<std::string> drainReasons = drain::registrationDrainReasons(gresCheck);
    // Per-GPU shard/mps counts against the node's Gres= totals.
    std::vector<gres::ConfiguredGres> configuredShared;
    for (const auto& configured : node->conf.gres) {
      if (gres::isSharedGresName(configured.name)) {
        configuredShared.push_back({.name = configured.name, .type = configured.type, .count = configured.count});
      }
    }
    if (auto shared = gres::checkSharedTotals(selectInfoFor(*node).devices, configuredShared); !shared) {
      drainReasons.push_back(shared.error());
    }
    // Detected hardware below what gantry.conf promises drains the node,
    // unless SlurmdParameters=config_overrides makes the configuration stand.
    if (!conf_.configOverrides) {
      const auto& hw = request.hardware();
      if (hw.cpus() > 0 && hw.cpus() < node->conf.cpus) {
        drainReasons.push_back("Low CPUs: configured " + std::to_string(node->conf.cpus) +
                               ", found " + std::to_string(hw.cpus()));
      }
      if (hw.real_memory_mb() > 0 && hw.real_memory_mb() < node->conf.realMemoryMb) {
        drainReasons.push_back("Low RealMemory: configured " + std::to_string(node->conf.realMemoryMb) +
                               "MB, found " + std::to_string(hw.real_memory_mb()) + "MB");
      }
    }
    if (!drainReasons.empty()) node->registrationErrors = std::move(drainReasons);
    cluster_.replaceNode(node->selectIndex, selectInfoFor(*node));
    refreshSelectAvailability(*node);

    // Jobs we believe run here but the agent does not have were lost with
    // the node (or never reached it): requeue them. Steps the agent runs for
    // jobs we do not know as running here are orphans: the agent ends them.
    std::set<uint64_t> reported;
    for (const auto& step : request.running()) reported.insert(step.job_id());
    v1::RegisterResponse response;
    for (uint64_t id : std::set<uint64_t>(node->jobs)) {
      auto found = jobs_.find(id);
      if (found == jobs_.end()) continue;
      JobEntry& entry = found->second;
      // Allocations without a script (salloc, srun) have no batch step to lose.
      if (entry.launchInFlight || entry.job.batch_host() != node->conf.name ||
          entry.job.spec().script().empty()) {
        continue;
      }
      if (!isTerminal(entry.job.state()) && reported.count(id) == 0) {
        requeueJob(entry, "batch step lost when node " + node->conf.name + " restarted");
      }
    }
    for (uint64_t id : reported) {
      auto found = jobs_.find(id);
      if (found == jobs_.end() || isTerminal(found->second.job.state()) ||
          node->jobs.count(id) == 0) {
        response.add_orphan_jobs(id);
      }
    }
    reply(std::move(response));
    requestSchedule();
  });
}

void ControllerCore::heartbeat(v1::HeartbeatRequest request, Reply<v1::HeartbeatResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    v1::HeartbeatResponse response;
    NodeEntry* node = findNode(request.node_name());
    if (node == nullptr) return reply(Error{"node " + request.node_name() + " is not in gantry.conf"});
    if (!node->registered) {
      response.set_reregister(true);
      return reply(std::move(response));
    }
    node->lastHeartbeat = now();
    for (const auto& reason : request.drain_reasons()) drainNode(*node, reason);
    if (node->notResponding) {
      node->notResponding = false;
      refreshSelectAvailability(*node);
      requestSchedule();
    }
    for (const auto& step : request.running()) {
      auto found = jobs_.find(step.job_id());
      if (found == jobs_.end() || isTerminal(found->second.job.state()) ||
          node->jobs.count(step.job_id()) == 0) {
        response.add_orphan_jobs(step.job_id());
      }
    }
    reply(std::move(response));
  });
}

void ControllerCore::recordDmemPeaks(const v1::StepCompleteRequest& request) {
  auto found = jobs_.find(request.job_id());
  if (found == jobs_.end()) return;
  auto& peaks = *found->second.job.mutable_dmem_peak_bytes();
  for (const auto& [region, bytes] : request.dmem_peak_bytes()) {
    uint64_t& peak = peaks[request.node_name() + ":" + region];
    peak = std::max(peak, bytes);
  }
}

void ControllerCore::stepComplete(v1::StepCompleteRequest request,
                                  Reply<v1::StepCompleteResponse> reply) {
  onStrand([this, request = std::move(request), reply = std::move(reply)] {
    recordDmemPeaks(request);
    if (numberedStepComplete(request)) return reply(v1::StepCompleteResponse{});
    auto found = jobs_.find(request.job_id());
    // Reports are retried until acknowledged, so a repeat (or a report for a
    // job that already ended) is simply acknowledged.
    if (found == jobs_.end() || isTerminal(found->second.job.state()) ||
        request.step_id() != "batch") {
      return reply(v1::StepCompleteResponse{});
    }
    JobEntry& entry = found->second;
    if (entry.job.batch_host() != request.node_name()) return reply(v1::StepCompleteResponse{});
    bool ok = request.exit_code() == 0 && request.term_signal() == 0;
    std::string reason = ok ? "None" : (request.term_signal() != 0 ? "RaisedSignal:" + std::to_string(request.term_signal())
                                                               : "NonZeroExitCode");
    if (!request.message().empty() && !ok) reason = request.message();
    endJob(entry, ok ? v1::COMPLETED : v1::FAILED, reason, request.exit_code(),
           request.term_signal());
    if (request.end_time() > 0) entry.job.set_end_time(request.end_time());
    persist(entry, [reply = std::move(reply)](const Status& status) {
      if (!status) return reply(Error{status.error()});
      reply(v1::StepCompleteResponse{});
    });
  });
}

}  // namespace gantry::core
