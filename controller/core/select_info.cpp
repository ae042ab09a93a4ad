#include "controller/core/select_info.h"

#include <algorithm>

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

}  // namespace

select::NodeInfo selectInfoFor(const NodeRecord& node) {
  select::NodeInfo info;
  info.name = node.conf.name;
  info.sockets = node.conf.sockets;
  info.coresPerSocket = node.conf.coresPerSocket;
  info.threadsPerCore = node.conf.threadsPerCore;
  info.realMemoryMb = node.conf.realMemoryMb;
  if (node.hardwareKnown) {
    addRegisteredGres(node, info);
  } else {
    addConfiguredGres(node, info);
  }
  return info;
}

}  // namespace gantry::core
