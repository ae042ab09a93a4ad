#include "controller/drain/drained_tres_text.h"

#include <algorithm>

#include "common/config/value_parse.h"

namespace gantry::drain {
namespace {

using config::formatIntRanges;

// Groups items by reason in order of first appearance.
template <typename Item, typename IdOf>
std::vector<std::pair<std::string, std::vector<int>>> byReason(const std::vector<const Item*>& items, IdOf idOf) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (const Item* item : items) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == item->reason; });
    if (it == groups.end()) {
      groups.push_back({item->reason, {}});
      it = groups.end() - 1;
    }
    it->second.push_back(idOf(*item));
  }
  return groups;
}

std::string countLabel(const CountDrain& c) { return c.tres.rfind("gres/", 0) == 0 ? c.tres.substr(5) : c.tres; }

}  // namespace

std::string formatDrainedTres(const DrainedTres& record) {
  std::vector<std::string> entries;
  for (std::size_t i = 0; i < record.devices.size();) {
    std::vector<const DeviceDrain*> ofGres;
    const std::string& gres = record.devices[i].gres;
    for (; i < record.devices.size() && record.devices[i].gres == gres; ++i) ofGres.push_back(&record.devices[i]);
    for (const auto& [reason, indexes] : byReason(ofGres, [](const DeviceDrain& d) { return d.index; })) {
      entries.push_back(gres + "(IDX:" + formatIntRanges(indexes) + ")(" + reason + ")");
    }
  }
  for (const CountDrain& c : record.counts) {
    if (c.tres != "mem") entries.push_back(countLabel(c) + ":" + std::to_string(c.count) + "(" + c.reason + ")");
  }
  std::vector<const CpuDrain*> cpus;
  for (const CpuDrain& c : record.cpus) cpus.push_back(&c);
  for (const auto& [reason, ids] : byReason(cpus, [](const CpuDrain& c) { return c.cpu; })) {
    entries.push_back("cpu(IDX:" + formatIntRanges(ids) + ")(" + reason + ")");
  }
  for (const CountDrain& c : record.counts) {
    if (c.tres == "mem") entries.push_back("mem:" + std::to_string(c.count) + "(" + c.reason + ")");
  }
  return config::join(entries, ",");
}

std::string formatDrainedTresListing(const std::vector<std::pair<std::string, DrainedTres>>& nodes) {
  std::string out;
  for (const auto& [name, record] : nodes) {
    std::string prefix = "NodeName=" + name + " TresName=";
    for (const DeviceDrain& d : record.devices) {
      out += prefix + "gres/" + d.gres + " Index=" + std::to_string(d.index);
      if (!d.uuid.empty() && !onEmptySlot(record, d)) out += " Uuid=" + d.uuid;
      out += " Reason=" + d.reason + "\n";
    }
    for (const CountDrain& c : record.counts) {
      if (c.tres != "mem") out += prefix + c.tres + " Count=" + std::to_string(c.count) + " Reason=" + c.reason + "\n";
    }
    std::vector<const CpuDrain*> cpus;
    for (const CpuDrain& c : record.cpus) cpus.push_back(&c);
    for (const auto& [reason, ids] : byReason(cpus, [](const CpuDrain& c) { return c.cpu; })) {
      out += prefix + "cpu Index=" + formatIntRanges(ids) + " Reason=" + reason + "\n";
    }
    for (const CountDrain& c : record.counts) {
      if (c.tres == "mem") out += prefix + "mem Count=" + std::to_string(c.count) + " Reason=" + c.reason + "\n";
    }
  }
  return out;
}

}  // namespace gantry::drain
