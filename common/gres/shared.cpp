#include "common/gres/shared.h"

#include <algorithm>
#include <cctype>

namespace gantry::gres {

namespace {

bool sameType(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string itemText(const ConfiguredGres& item) {
  return item.name + (item.type.empty() ? "" : ":" + item.type) + ":" + std::to_string(item.count);
}

// Shares of `name` on the GPUs whose type is `type` (any type when empty).
uint64_t sharesOfType(const std::vector<DeviceInfo>& devices, const std::string& name, const std::string& type) {
  uint64_t total = 0;
  for (const auto& device : devices)
    if (type.empty() || sameType(device.type, type)) total += sharedCountOf(device, name);
  return total;
}

Status checkOneName(const std::vector<DeviceInfo>& devices, const std::string& name,
                    const std::vector<ConfiguredGres>& configured) {
  uint64_t offered = sharesOfType(devices, name, "");
  uint64_t typedSum = 0;
  bool anyTyped = false, anyItem = false;
  for (const auto& item : configured) {
    if (item.name != name) continue;
    anyItem = true;
    uint64_t here = sharesOfType(devices, name, item.type);
    if (here != item.count)
      return Error{"Gres=" + itemText(item) + " but the node's " + (item.type.empty() ? "GPUs" : item.type + " GPUs") +
                   " offer " + std::to_string(here) + " " + name};
    if (!item.type.empty()) {
      anyTyped = true;
      typedSum += item.count;
    }
  }
  if (!anyItem && offered > 0)
    return Error{"the node's GPUs offer " + std::to_string(offered) + " " + name + " but Gres= declares no " + name};
  if (anyTyped && typedSum != offered)
    return Error{"Gres= declares " + std::to_string(typedSum) + " " + name + " by type but the node's GPUs offer " +
                 std::to_string(offered) + " (GPUs of an undeclared type offer " + name + ")"};
  return okStatus();
}

}  // namespace

uint64_t sharedCountOf(const DeviceInfo& device, std::string_view name) {
  for (const auto& share : device.shared)
    if (share.name == name) return share.count;
  return 0;
}

std::vector<std::string> sharedNamesOf(const std::vector<DeviceInfo>& devices) {
  std::vector<std::string> names;
  for (const auto& device : devices)
    for (const auto& share : device.shared)
      if (share.count > 0 && std::find(names.begin(), names.end(), share.name) == names.end())
        names.push_back(share.name);
  return names;
}

Status checkSharedTotals(const std::vector<DeviceInfo>& devices, const std::vector<ConfiguredGres>& configured) {
  std::vector<std::string> names = sharedNamesOf(devices);
  for (const auto& item : configured)
    if (isSharedGresName(item.name) && std::find(names.begin(), names.end(), item.name) == names.end())
      names.push_back(item.name);
  for (const auto& name : names)
    if (auto status = checkOneName(devices, name, configured); !status) return status;
  return okStatus();
}

int mpsActiveThreadPercentage(uint64_t shares, uint64_t deviceCount) {
  if (deviceCount == 0) return 0;
  return static_cast<int>(std::min<uint64_t>(shares * 100 / deviceCount, 100));
}

}  // namespace gantry::gres
