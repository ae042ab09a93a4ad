#include "controller/drain/drain_command.h"

#include <algorithm>
#include <set>

#include "common/config/value_parse.h"

namespace gantry::drain {
namespace {

using config::formatIntRanges;
using config::iequals;

// What the TresName names, once split.
struct TresTarget {
  enum class Kind { Cpu, Mem, Gres } kind = Kind::Gres;
  std::string name;  // GRES name
  std::string type;  // GRES type, "" when none given
};

Result<TresTarget> parseTarget(const std::string& tres) {
  if (iequals(tres, "cpu")) return TresTarget{TresTarget::Kind::Cpu, "", ""};
  if (iequals(tres, "mem")) return TresTarget{TresTarget::Kind::Mem, "", ""};
  std::string lower = config::toLower(tres);
  if (lower.rfind("gres/", 0) == 0 && tres.size() > 5) {
    std::string rest = tres.substr(5);
    std::size_t colon = rest.find(':');
    TresTarget target{TresTarget::Kind::Gres, rest.substr(0, colon), ""};
    if (colon != std::string::npos) target.type = rest.substr(colon + 1);
    if (!target.name.empty() && target.type.find(':') == std::string::npos) return target;
  }
  return Error{"TresName=" + tres + " cannot be drained; name cpu, mem or gres/NAME[:TYPE]"};
}

Status checkReason(const DrainRequest& request) {
  if (request.action != DrainAction::Resume && request.reason.empty()) {
    return Error{"Reason= is required for Action=" + toString(request.action)};
  }
  if (request.selector == SelectorKind::None) {
    return Error{"TresName=" + request.tres + " needs Index=, Uuid= or Count= to say which resources"};
  }
  return okStatus();
}

std::string indexLeftDrained(const std::string& gres, int index, const std::string& node) {
  return "gres/" + gres + " index " + std::to_string(index) + " of " + node + " stays drained: no device there";
}

// ---- devices ----

void drainDevice(DrainedTres& record, const NodeDevice& device, bool bySavedOrder, const std::string& reason) {
  for (DeviceDrain& drain : record.devices) {
    if (drain.gres == device.gres && drain.index == device.index) {
      drain.reason = reason;
      drain.notFound = false;
      return;
    }
  }
  record.devices.push_back(
      DeviceDrain{device.gres, device.type, device.index, bySavedOrder ? device.uuid : "", reason, false});
}

void resumeDevice(DrainedTres& record, const NodeDevice& device) {
  std::erase_if(record.devices, [&](const DeviceDrain& d) { return d.gres == device.gres && d.index == device.index; });
}

Result<std::vector<NodeDevice>> selectDevices(const std::vector<NodeDevice>& ofGres,
                                              const std::vector<NodeDevice>& candidates, const TresTarget& target,
                                              const DrainRequest& request, const std::string& node) {
  std::string what = "gres/" + target.name;
  switch (request.selector) {
    case SelectorKind::All:
      return candidates;
    case SelectorKind::Count:
      return Error{what + " has devices on " + node + "; select them with Index= or Uuid=, not Count="};
    case SelectorKind::Uuid: {
      for (const NodeDevice& device : candidates) {
        if (device.present && iequals(device.uuid, request.uuid)) return std::vector<NodeDevice>{device};
      }
      for (const NodeDevice& device : ofGres) {
        if (!device.present && iequals(device.uuid, request.uuid)) {
          return Error{"Uuid=" + request.uuid + " left " + node + "; its empty slot is " + what +
                       " Index=" + std::to_string(device.index)};
        }
      }
      return Error{"no " + request.tres + " on " + node + " has Uuid=" + request.uuid};
    }
    case SelectorKind::Index: {
      std::vector<NodeDevice> chosen;
      for (int index : request.indexes) {
        auto it = std::find_if(ofGres.begin(), ofGres.end(), [&](const NodeDevice& d) { return d.index == index; });
        if (it == ofGres.end()) {
          std::vector<int> known;
          for (const NodeDevice& d : ofGres) known.push_back(d.index);
          return Error{what + " Index=" + std::to_string(index) + " is not a device of " + node + " (indexes " +
                       formatIntRanges(known) + ")"};
        }
        if (!typeNames(target.type, it->type)) {
          return Error{what + " index " + std::to_string(index) + " of " + node + " is not of type " + target.type};
        }
        chosen.push_back(*it);
      }
      return chosen;
    }
    case SelectorKind::None:
      break;
  }
  return Error{"no resources selected"};
}

Result<CommandOutcome> applyToDevices(const DrainedTres& record, const NodeResources& node, const TresTarget& target,
                                      const DrainRequest& request) {
  std::vector<NodeDevice> ofGres, candidates;
  for (const NodeDevice& device : node.devices) {
    if (device.gres != target.name) continue;
    ofGres.push_back(device);
    if (typeNames(target.type, device.type)) candidates.push_back(device);
  }
  if (candidates.empty()) return Error{node.nodeName + " has no " + request.tres};
  auto selected = selectDevices(ofGres, candidates, target, request, node.nodeName);
  if (!selected) return selected.failure();

  CommandOutcome out{record, {}};
  bool bySavedOrder = savedOrderOf(record, target.name) != nullptr;
  auto isSelected = [&](const NodeDevice& device) {
    return std::any_of(selected->begin(), selected->end(),
                       [&](const NodeDevice& s) { return s.index == device.index; });
  };
  auto isDrained = [&](const NodeDevice& device) { return deviceDrainAt(out.record, device.gres, device.index); };

  if (request.action == DrainAction::Resume) {
    for (const NodeDevice& device : *selected) {
      if (device.present) {
        resumeDevice(out.record, device);
      } else if (request.selector == SelectorKind::Index) {
        return Error{"gres/" + target.name + " index " + std::to_string(device.index) + " of " + node.nodeName +
                     " has no device; it stays drained until a device fills it"};
      } else if (isDrained(device)) {
        out.leftDrained.push_back(indexLeftDrained(target.name, device.index, node.nodeName));
      }
    }
  } else {
    if (request.action == DrainAction::SetDrain) {
      for (const NodeDevice& device : candidates) {
        if (isSelected(device) || !isDrained(device)) continue;
        if (device.present) {
          resumeDevice(out.record, device);
        } else {
          out.leftDrained.push_back(indexLeftDrained(target.name, device.index, node.nodeName));
        }
      }
    }
    for (const NodeDevice& device : *selected) drainDevice(out.record, device, bySavedOrder, request.reason);
  }
  normalise(out.record);
  return out;
}

// ---- CPUs ----

Result<CommandOutcome> applyToCpus(const DrainedTres& record, const NodeResources& node, const DrainRequest& request) {
  int threads = std::max(1, node.threadsPerCore);
  int cpuCount = node.cores * threads;
  std::set<int> cores;
  switch (request.selector) {
    case SelectorKind::Uuid:
      return Error{"cpu has no Uuid=; select CPUs with Index="};
    case SelectorKind::Count:
      return Error{"a numeric Count= is refused for cpu; select CPUs with Index= (Count=ALL drains every core)"};
    case SelectorKind::All:
      for (int core = 0; core < node.cores; ++core) cores.insert(core);
      break;
    case SelectorKind::Index:
      for (int cpu : request.indexes) {
        if (cpu < 0 || cpu >= cpuCount) {
          return Error{"cpu Index=" + std::to_string(cpu) + " is not a CPU of " + node.nodeName + " (CPUs 0-" +
                       std::to_string(cpuCount - 1) + ")"};
        }
        cores.insert(cpu / threads);  // a drain always takes the whole core
      }
      break;
    case SelectorKind::None:
      return Error{"no CPUs selected"};
  }
  std::set<int> cpus;
  for (int core : cores) {
    for (int t = 0; t < threads; ++t) cpus.insert(core * threads + t);
  }

  CommandOutcome out{record, {}};
  auto& drained = out.record.cpus;
  if (request.action != DrainAction::Drain) {
    // Resume takes the named cores out; SetDrain starts from nothing.
    std::erase_if(drained,
                  [&](const CpuDrain& d) { return request.action == DrainAction::SetDrain || cpus.count(d.cpu) > 0; });
  }
  if (request.action != DrainAction::Resume) {
    for (int cpu : cpus) {
      auto it = std::find_if(drained.begin(), drained.end(), [&](const CpuDrain& d) { return d.cpu == cpu; });
      if (it != drained.end()) {
        it->reason = request.reason;
      } else {
        drained.push_back(CpuDrain{cpu, request.reason});
      }
    }
  }
  normalise(out.record);
  return out;
}

// ---- amounts: memory and count-only GRES ----

Result<CommandOutcome> applyToAmount(const DrainedTres& record, const std::string& key, uint64_t total,
                                     const std::string& node, const DrainRequest& request) {
  if (request.selector == SelectorKind::Index || request.selector == SelectorKind::Uuid) {
    return Error{key + " is an amount on " + node + "; select how much with Count="};
  }
  if (request.selector == SelectorKind::Count && request.count == 0) return Error{"Count= must be at least 1"};
  bool all = request.selector == SelectorKind::All;

  CommandOutcome out{record, {}};
  auto it = std::find_if(out.record.counts.begin(), out.record.counts.end(),
                         [&](const CountDrain& c) { return c.tres == key; });
  uint64_t drained = it == out.record.counts.end() ? 0 : it->count;
  uint64_t next = 0;
  switch (request.action) {
    case DrainAction::Drain:
      next = all ? total : drained + request.count;
      break;
    case DrainAction::SetDrain:
      next = all ? total : request.count;
      break;
    case DrainAction::Resume:
      if (!all && request.count > drained) {
        return Error{"Count=" + std::to_string(request.count) + " is more than the " + std::to_string(drained) +
                     " of " + key + " drained on " + node};
      }
      next = all ? 0 : drained - request.count;
      break;
  }
  if (next > total) {
    return Error{"draining " + std::to_string(next) + " of " + key + " is more than the " + std::to_string(total) +
                 " " + node + " has"};
  }
  if (it == out.record.counts.end()) {
    out.record.counts.push_back(CountDrain{key, next, request.reason});
  } else {
    it->count = next;
    if (request.action != DrainAction::Resume) it->reason = request.reason;  // one reason per TRES, the latest
  }
  normalise(out.record);
  return out;
}

Result<CommandOutcome> applyToCountedGres(const DrainedTres& record, const NodeResources& node,
                                          const TresTarget& target, const DrainRequest& request) {
  std::vector<const NodeCountedGres*> matches;
  for (const NodeCountedGres& counted : node.counted) {
    if (counted.name == target.name && (target.type.empty() || iequals(counted.type, target.type))) {
      matches.push_back(&counted);
    }
  }
  if (matches.empty()) return Error{node.nodeName + " has no " + request.tres};
  if (matches.size() > 1) {
    std::vector<std::string> types;
    for (const NodeCountedGres* m : matches) types.push_back(m->type);
    return Error{"gres/" + target.name + " has types " + config::join(types, ", ") + " on " + node.nodeName +
                 "; name one (gres/" + target.name + ":TYPE)"};
  }
  const NodeCountedGres& counted = *matches.front();
  std::string key = "gres/" + counted.name + (counted.type.empty() ? "" : ":" + counted.type);
  return applyToAmount(record, key, counted.total, node.nodeName, request);
}

}  // namespace

std::vector<NodeDevice> devicesFromSavedOrder(const SavedOrder& order) {
  std::vector<NodeDevice> out;
  for (std::size_t i = 0; i < order.slots.size(); ++i) {
    const SavedSlot& slot = order.slots[i];
    out.push_back(NodeDevice{order.gres, slot.type, static_cast<int>(i), slot.uuid, slot.present});
  }
  return out;
}

Result<CommandOutcome> applyDrainCommand(const DrainedTres& record, const NodeResources& node,
                                         const DrainRequest& request) {
  auto target = parseTarget(request.tres);
  if (!target) return target.failure();
  if (auto ok = checkReason(request); !ok) return ok.failure();
  switch (target->kind) {
    case TresTarget::Kind::Cpu:
      return applyToCpus(record, node, request);
    case TresTarget::Kind::Mem:
      return applyToAmount(record, "mem", node.memoryMb, node.nodeName, request);
    case TresTarget::Kind::Gres:
      break;
  }
  for (const std::string& shared : node.sharedGres) {
    if (iequals(shared, target->name)) {
      return Error{"gres/" + target->name + " is shared and cannot be drained directly; drain the GPU that backs it"};
    }
  }
  if (iequals(target->name, "shard") || iequals(target->name, "mps")) {
    return Error{"gres/" + target->name + " is shared and cannot be drained directly; drain the GPU that backs it"};
  }
  bool hasDevices = std::any_of(node.devices.begin(), node.devices.end(),
                                [&](const NodeDevice& d) { return d.gres == target->name; });
  if (hasDevices) return applyToDevices(record, node, *target, request);
  return applyToCountedGres(record, node, *target, request);
}

}  // namespace gantry::drain
