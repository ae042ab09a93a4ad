#include "controller/drain/drain_limits.h"

#include "common/config/value_parse.h"

namespace gantry::drain {

using config::iequals;

uint64_t drainedAmount(const DrainedTres& record, const std::string& limitTres) {
  if (iequals(limitTres, "cpu")) return record.cpus.size();
  uint64_t total = 0;
  if (iequals(limitTres, "mem")) {
    for (const CountDrain& c : record.counts) {
      if (c.tres == "mem") total += c.count;
    }
    return total;
  }
  // gres/NAME or gres/NAME:TYPE
  std::string rest = limitTres.size() > 5 ? limitTres.substr(5) : "";
  std::size_t colon = rest.find(':');
  std::string name = rest.substr(0, colon);
  std::string type = colon == std::string::npos ? "" : rest.substr(colon + 1);
  for (const DeviceDrain& d : record.devices) {
    if (iequals(d.gres, name) && typeNames(type, d.type)) ++total;
  }
  for (const CountDrain& c : record.counts) {
    bool sameName =
        iequals(c.tres, "gres/" + name) || config::toLower(c.tres).rfind(config::toLower("gres/" + name + ":"), 0) == 0;
    if (!sameName) continue;
    if (type.empty() || iequals(c.tres, "gres/" + name + ":" + type)) total += c.count;
  }
  return total;
}

std::optional<std::string> limitDrainReason(const DrainedTres& record, const std::vector<config::TresLimit>& limits) {
  std::vector<std::string> past;
  for (const config::TresLimit& limit : limits) {
    uint64_t drained = drainedAmount(record, limit.tres);
    if (drained > limit.count) {
      past.push_back(limit.tres + " " + std::to_string(drained) + " drained, limit " + std::to_string(limit.count));
    }
  }
  if (past.empty()) return std::nullopt;
  return "MaxDrainedTres exceeded: " + config::join(past, "; ");
}

}  // namespace gantry::drain
