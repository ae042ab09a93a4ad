// AutoDetect=rsmi: AMD GPUs through the ROCm SMI library, loaded with dlopen.
// ROCm SMI gives names, ids and XGMI link types; CPU affinity, DRM nodes and
// the compute partition mode come from sysfs like AutoDetect=amd.
#include <cstdio>

#include "nodeagent/detect/backends.h"
#include "nodeagent/detect/host_files.h"
#include "nodeagent/detect/rsmi_abi.h"
#include "nodeagent/detect/shared_library.h"

namespace gantry::detect {
namespace {

struct Rsmi {
  rsmi_init_fn init = nullptr;
  rsmi_shut_down_fn shutDown = nullptr;
  rsmi_num_monitor_devices_fn count = nullptr;
  rsmi_dev_pci_id_get_fn pciId = nullptr;
  rsmi_dev_name_get_fn name = nullptr;
  rsmi_dev_id_get_fn deviceId = nullptr;
  rsmi_dev_unique_id_get_fn uniqueId = nullptr;
  rsmi_dev_drm_render_minor_get_fn renderMinor = nullptr;
  rsmi_topo_get_link_type_fn linkType = nullptr;

  bool bind(const SharedLibrary& lib) {
    init = lib.symbol<rsmi_init_fn>("rsmi_init");
    shutDown = lib.symbol<rsmi_shut_down_fn>("rsmi_shut_down");
    count = lib.symbol<rsmi_num_monitor_devices_fn>("rsmi_num_monitor_devices");
    pciId = lib.symbol<rsmi_dev_pci_id_get_fn>("rsmi_dev_pci_id_get");
    name = lib.symbol<rsmi_dev_name_get_fn>("rsmi_dev_name_get");
    deviceId = lib.symbol<rsmi_dev_id_get_fn>("rsmi_dev_id_get");
    uniqueId = lib.symbol<rsmi_dev_unique_id_get_fn>("rsmi_dev_unique_id_get");
    renderMinor = lib.symbol<rsmi_dev_drm_render_minor_get_fn>("rsmi_dev_drm_render_minor_get");
    linkType = lib.symbol<rsmi_topo_get_link_type_fn>("rsmi_topo_get_link_type");
    return init && shutDown && count && pciId && name && deviceId && renderMinor;
  }
};

struct RsmiSession {
  const Rsmi& rsmi;
  ~RsmiSession() { rsmi.shutDown(); }
};

Error rsmiError(const std::string& call, rsmi_status_t rc) {
  return Error{"AutoDetect=rsmi: " + call + " failed (ROCm SMI status " + std::to_string(rc) + ")"};
}

// ROCm SMI packs the PCI address as domain<<32 | bus<<8 | device<<3 | function.
std::string busIdFromBdf(uint64_t bdf) {
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", static_cast<unsigned>((bdf >> 32) & 0xffff),
                static_cast<unsigned>((bdf >> 8) & 0xff), static_cast<unsigned>((bdf >> 3) & 0x1f),
                static_cast<unsigned>(bdf & 0x7));
  return text;
}

}  // namespace

Result<BackendResult> detectRsmi(const DetectOptions& options, const CpuTopology& topology) {
  BackendResult result;
  std::vector<std::string> names = {"librocm_smi64.so", "librocm_smi64.so.1", "librocm_smi64.so.7"};
  if (!options.rsmiLibrary.empty()) names = {options.rsmiLibrary};
  auto library = SharedLibrary::open(names);
  if (!library) {
    result.unavailable = true;
    result.note = "ROCm SMI not loadable: " + library.error();
    return result;
  }
  Rsmi rsmi;
  if (!rsmi.bind(*library)) return Error{"AutoDetect=rsmi: " + library->name() + " lacks required ROCm SMI functions"};
  if (auto rc = rsmi.init(0); rc != kRsmiSuccess) return rsmiError("rsmi_init", rc);
  RsmiSession session{rsmi};

  uint32_t count = 0;
  if (auto rc = rsmi.count(&count); rc != kRsmiSuccess) return rsmiError("rsmi_num_monitor_devices", rc);
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t bdf = 0;
    uint16_t device = 0;
    uint32_t render = 0;
    char name[256] = {};
    if (auto rc = rsmi.pciId(i, &bdf); rc != kRsmiSuccess) return rsmiError("rsmi_dev_pci_id_get", rc);
    if (auto rc = rsmi.deviceId(i, &device); rc != kRsmiSuccess) return rsmiError("rsmi_dev_id_get", rc);
    if (auto rc = rsmi.renderMinor(i, &render); rc != kRsmiSuccess) return rsmiError("rsmi_dev_drm_render_minor_get", rc);
    rsmi.name(i, name, sizeof name);

    FoundGpu found;
    DetectedGpu& gpu = found.gpu;
    gpu.pciBusId = busIdFromBdf(bdf);
    if (auto partition = checkAmdComputePartition(options.hostRoot, gpu.pciBusId, "rsmi"); !partition) {
      return Error{partition.error()};
    }
    char deviceText[16];
    std::snprintf(deviceText, sizeof deviceText, "0x%04x", device);
    gpu.type = typeFromName(name[0] ? name : deviceText);
    uint64_t unique = 0;
    if (rsmi.uniqueId && rsmi.uniqueId(i, &unique) == kRsmiSuccess && unique != 0) {
      char uuid[32];
      std::snprintf(uuid, sizeof uuid, "GPU-%016llx", static_cast<unsigned long long>(unique));
      gpu.uuid = uuid;
    }
    gpu.files = driNodesOfPciDevice(options.hostRoot, gpu.pciBusId);
    if (gpu.files.empty()) gpu.files = {"/dev/dri/renderD" + std::to_string(render)};
    gpu.minor = static_cast<int>(render);
    gpu.vendor = "amd";
    gpu.mechanism = "rsmi";
    auto cores = pciDeviceCores(options.hostRoot, gpu.pciBusId, topology);
    if (!cores) return Error{"AutoDetect=rsmi: " + cores.error()};
    gpu.cores = *cores;
    result.gpus.push_back(std::move(found));
  }
  if (rsmi.linkType) {
    for (uint32_t i = 0; i < result.gpus.size(); ++i) {
      result.gpus[i].linksKnown = true;
      for (uint32_t j = 0; j < result.gpus.size(); ++j) {
        uint64_t hops = 0;
        int type = 0;
        if (i != j && rsmi.linkType(i, j, &hops, &type) == kRsmiSuccess && type == kRsmiIoLinkTypeXgmi) {
          result.gpus[i].linkPeers.push_back(result.gpus[j].gpu.pciBusId);
        }
      }
    }
  }
  return result;
}

}  // namespace gantry::detect
