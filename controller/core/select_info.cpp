#include "controller/core/select_info.h"

#include <algorithm>
#include <map>
#include <set>

namespace gantry::core {

namespace {

bool isShared(const std::string& name) { return name == "shard" || name == "mps"; }

// Registered GRES records: devices in index order, the shares each GPU
// offers, count-only GRES and chunk layouts.
void addRegisteredGres(const NodeRecord& node, select::NodeInfo& info) {
  for (const auto& device : node.hardware.gres()) {
    // Shared GRES (shard, mps) are not devices: each record offers shares
    // of the GPU with the same device file, which comes earlier in device
    // order. Count-only GRES have no device identity: selection counts them.
    bool shared = isShared(device.name());
    if (shared && device.files_size() > 0) {
      auto gpu = std::find_if(info.devices.begin(), info.devices.end(), [&](const select::DeviceInfo& d) {
        return !d.files.empty() && d.files.front() == device.files(0);
      });
      if (gpu != info.devices.end()) {
        gpu->shared.push_back(gres::SharedCount{.name = device.name(), .count = device.count()});
        continue;
      }
    }
    // Typed and no_consume count-only GRES keep what gantry.conf says of them.
    bool noConsume = false;
    for (const auto& configured : node.conf.gres) {
      if (configured.name == device.name() && configured.type == device.type()) noConsume = configured.noConsume;
    }
    // A no_consume GRES is counted even when there is one of it: as a
    // device it would be held by the first job and used up.
    if (shared || (device.files_size() == 0 && (device.count() != 1 || noConsume))) {
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
}

// Before any registration: gpu items of Gres= as devices (no files, links
// or cores yet), shard/mps spread evenly over them, the rest counted. The
// node is not schedulable until it registers, so this only lets submissions
// be judged; the registration replaces it with the real devices.
void addConfiguredGres(const NodeRecord& node, select::NodeInfo& info) {
  for (const auto& item : node.conf.gres) {
    if (item.name != "gpu") continue;
    for (uint64_t i = 0; i < item.count && info.devices.size() < static_cast<size_t>(gres::kMaxDevicesPerNode); ++i) {
      select::DeviceInfo device;
      device.name = "gpu";
      device.type = item.type;
      info.devices.push_back(std::move(device));
    }
  }
  for (const auto& item : node.conf.gres) {
    if (item.name == "gpu") continue;
    if (isShared(item.name) && !info.devices.empty() && item.count % info.devices.size() == 0) {
      for (auto& device : info.devices) {
        device.shared.push_back(gres::SharedCount{.name = item.name, .count = item.count / info.devices.size()});
      }
      continue;
    }
    info.countedGres.push_back(
        gres::CountedGres{.name = item.name, .type = item.type, .count = item.count, .noConsume = item.noConsume});
  }
}

// A device GRES with a saved order is laid out by it: each device at its
// saved index, and a slot whose device is not reported as a device with no
// file (always drained, so never given), so that the indexes jobs, drains and
// scontrol use are the saved ones. A reported device the order does not know
// (one past the configured count, or a report that was refused) is left out.
// Links are per GRES name (LinkGraph reads links[j] as the j-th device of the
// same name), so only this GRES's links are permuted.
void applySavedOrders(const NodeRecord& node, select::NodeInfo& info) {
  for (const auto& order : node.drainedTres.savedOrders) {
    std::vector<int> reported;  // positions in info.devices of this GRES's devices, agent order
    for (size_t i = 0; i < info.devices.size(); ++i) {
      if (info.devices[i].name == order.gres) reported.push_back(static_cast<int>(i));
    }
    // Per slot, the agent ordinal of its device, or -1.
    std::vector<int> source(order.slots.size(), -1);
    std::vector<bool> placed(reported.size(), false);
    for (size_t slot = 0; slot < order.slots.size(); ++slot) {
      if (!order.slots[slot].present) continue;
      for (size_t ordinal = 0; ordinal < reported.size(); ++ordinal) {
        if (!placed[ordinal] && info.devices[reported[ordinal]].uuid == order.slots[slot].uuid) {
          source[slot] = static_cast<int>(ordinal);
          placed[ordinal] = true;
          break;
        }
      }
    }
    std::vector<int> slotOfOrdinal(reported.size(), -1);
    for (size_t slot = 0; slot < source.size(); ++slot) {
      if (source[slot] >= 0) slotOfOrdinal[source[slot]] = static_cast<int>(slot);
    }
    bool linked = std::any_of(reported.begin(), reported.end(),
                              [&](int position) { return !info.devices[position].links.empty(); });
    std::vector<select::DeviceInfo> laidOut;
    for (size_t slot = 0; slot < order.slots.size(); ++slot) {
      select::DeviceInfo device;
      if (source[slot] >= 0) {
        device = info.devices[reported[source[slot]]];
        if (!device.links.empty()) {
          std::vector<int> links(order.slots.size(), 0);
          for (size_t other = 0; other < device.links.size() && other < slotOfOrdinal.size(); ++other) {
            if (slotOfOrdinal[other] >= 0) links[slotOfOrdinal[other]] = device.links[other];
          }
          device.links = std::move(links);
        }
      } else {
        device.name = order.gres;
        device.type = order.slots[slot].type;
        device.uuid = order.slots[slot].uuid;
        if (linked) {
          device.links.assign(order.slots.size(), 0);  // linked to nothing, so the matrix stays square
          device.links[slot] = -1;
        }
      }
      laidOut.push_back(std::move(device));
    }
    // The GRES's devices go where its first one was (last when none is reported).
    std::vector<select::DeviceInfo> devices;
    bool inserted = false;
    for (auto& device : info.devices) {
      if (device.name != order.gres) {
        devices.push_back(std::move(device));
      } else if (!inserted) {
        devices.insert(devices.end(), laidOut.begin(), laidOut.end());
        inserted = true;
      }
    }
    if (!inserted) devices.insert(devices.end(), laidOut.begin(), laidOut.end());
    info.devices = std::move(devices);
  }
}

}  // namespace

select::NodeInfo selectInfoFor(const NodeRecord& node) {
  select::NodeInfo info;
  info.name = node.conf.name;
  info.sockets = node.conf.sockets;
  info.coresPerSocket = node.conf.coresPerSocket;
  info.threadsPerCore = node.conf.threadsPerCore;
  info.realMemoryMb = node.conf.realMemoryMb;
  info.restrictedCoresPerGpu = node.conf.restrictedCoresPerGpu;
  if (node.hardwareKnown) {
    addRegisteredGres(node, info);
    applySavedOrders(node, info);
  } else {
    addConfiguredGres(node, info);
  }
  return info;
}

namespace {

// The position in info.devices of the `index`-th device named `gres`; -1 when there is none.
int devicePosition(const select::NodeInfo& info, const std::string& gres, int index) {
  int seen = 0;
  for (size_t i = 0; i < info.devices.size(); ++i) {
    if (info.devices[i].name != gres) continue;
    if (seen++ == index) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

SelectDrains selectDrainsFor(const NodeRecord& node, const select::NodeInfo& info) {
  SelectDrains out;
  const drain::DrainedTres& record = node.drainedTres;
  auto drainDevice = [&](const std::string& gres, int index) {
    int position = devicePosition(info, gres, index);
    if (position >= 0 && position < gres::kMaxDevicesPerNode) out.devices |= gres::bitOf(position);
  };
  for (const auto& d : record.devices) drainDevice(d.gres, d.index);
  // Every slot with no device behind it: an empty slot, or a slot whose
  // device a refused report left out.
  if (node.hardwareKnown) {
    for (const auto& order : record.savedOrders) {
      for (size_t slot = 0; slot < order.slots.size(); ++slot) {
        int position = devicePosition(info, order.gres, static_cast<int>(slot));
        bool noDevice = position >= 0 && info.devices[position].files.empty();
        if (!order.slots[slot].present || noDevice) drainDevice(order.gres, static_cast<int>(slot));
      }
    }
  }
  for (const auto& c : record.cpus) out.resources.cpus.push_back(c.cpu);
  for (const auto& c : record.counts) {
    if (c.tres == "mem") {
      out.resources.memoryMb += c.count;
    } else if (c.tres.rfind("gres/", 0) == 0) {
      out.resources.counts.emplace_back(c.tres.substr(5), c.count);
    }
  }
  return out;
}

drain::NodeResources drainResourcesFor(const NodeRecord& node, const select::NodeInfo& info) {
  drain::NodeResources out;
  out.nodeName = node.conf.name;
  out.cores = info.sockets * info.coresPerSocket;
  out.threadsPerCore = std::max(info.threadsPerCore, 1);
  out.memoryMb = info.realMemoryMb;
  std::map<std::string, int> nextIndex;
  for (const auto& device : info.devices) {
    const drain::SavedOrder* order = drain::savedOrderOf(node.drainedTres, device.name);
    if (order != nullptr && node.hardwareKnown) continue;  // laid out by its saved order below
    int index = nextIndex[device.name]++;
    out.devices.push_back(drain::NodeDevice{
        .gres = device.name, .type = device.type, .index = index, .uuid = device.uuid, .present = true});
  }
  if (node.hardwareKnown) {
    for (const auto& order : node.drainedTres.savedOrders) {
      auto devices = drain::devicesFromSavedOrder(order);
      out.devices.insert(out.devices.end(), devices.begin(), devices.end());
    }
  }
  for (const auto& counted : info.countedGres) {
    if (isShared(counted.name)) continue;
    out.counted.push_back(drain::NodeCountedGres{.name = counted.name, .type = counted.type, .total = counted.count});
  }
  for (const auto& [name, count] : info.countGres) {
    out.counted.push_back(drain::NodeCountedGres{.name = name, .type = "", .total = count});
  }
  std::set<std::string> shared;
  for (const auto& device : info.devices) {
    for (const auto& offered : device.shared) shared.insert(offered.name);
  }
  for (const auto& configured : node.conf.gres) {
    if (isShared(configured.name)) shared.insert(configured.name);
  }
  out.sharedGres.assign(shared.begin(), shared.end());
  return out;
}

}  // namespace gantry::core
