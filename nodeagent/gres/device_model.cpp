#include "nodeagent/gres/device_model.h"

#include <algorithm>

#include "nodeagent/gres/gres_names.h"

namespace gantry::nodegres {

std::vector<gres::DeviceInfo> toDeviceInfos(const std::vector<GresRecord>& records) {
  std::vector<gres::DeviceInfo> devices;
  for (const auto& r : records) {
    if (r.files.empty() || isSharedName(r.name)) continue;
    gres::DeviceInfo d;
    d.name = r.name;
    d.type = r.type;
    d.files = r.files;
    d.cores = r.cores;
    d.links = r.links;
    d.uuid = r.uuid;
    d.explicitOnly = std::any_of(r.flags.begin(), r.flags.end(),
                                 [](const std::string& f) { return lowerCase(f) == "explicit"; });
    devices.push_back(std::move(d));
  }
  return devices;
}

std::vector<gres::ChunkLayout> toChunkLayouts(const std::vector<GresRecord>& records) {
  std::vector<gres::ChunkLayout> layouts;
  for (const auto& r : records) {
    if (r.chunkSizes.empty()) continue;
    bool known = std::any_of(layouts.begin(), layouts.end(), [&](const gres::ChunkLayout& l) {
      return lowerCase(l.name) == lowerCase(r.name) && lowerCase(l.type) == lowerCase(r.type);
    });
    if (known) continue;
    gres::ChunkLayout layout;
    layout.name = r.name;
    layout.type = r.type;
    layout.sizes = r.chunkSizes;
    layout.order = r.chunkOrder;
    layouts.push_back(std::move(layout));
  }
  return layouts;
}

}  // namespace gantry::nodegres
