#include "nodeagent/gres/accounting.h"

#include "nodeagent/detect/hardware.h"
#include "nodeagent/gres/gres_names.h"

namespace gantry::nodegres {

std::string unaccountedGpusReason(const std::vector<GresRecord>& gpus, const std::vector<config::GresCount>& nodeGres,
                                  const std::string& nodeName) {
  std::vector<bool> accounted(gpus.size(), false);
  std::vector<uint64_t> left;
  for (const auto& g : nodeGres) left.push_back(isGpuName(g.name) ? g.count : 0);
  // Exact types first, so "a100" does not take a device meant for "a100_3g.20gb".
  enum class Pass { ExactType, SubstringType, Untyped };
  for (Pass pass : {Pass::ExactType, Pass::SubstringType, Pass::Untyped}) {
    for (size_t e = 0; e < nodeGres.size(); ++e) {
      const auto& g = nodeGres[e];
      if (left[e] == 0 || g.type.empty() != (pass == Pass::Untyped)) continue;
      for (size_t i = 0; i < gpus.size() && left[e] > 0; ++i) {
        const std::string& type = gpus[i].type;
        bool fits = pass == Pass::Untyped ||
                    (pass == Pass::ExactType ? lowerCase(type) == lowerCase(g.type) : detect::typeMatches(g.type, type));
        if (accounted[i] || !fits) continue;
        accounted[i] = true;
        left[e] -= std::min<uint64_t>(left[e], gpus[i].count);
      }
    }
  }
  std::vector<std::string> extra;
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (!accounted[i] && gpus[i].autodetected) {
      extra.push_back("gpu:" + gpus[i].type + "(" + joinStrings(gpus[i].files) + ")");
    }
  }
  if (extra.empty()) return "";
  std::vector<std::string> configured;
  for (const auto& g : nodeGres) {
    if (isGpuName(g.name)) configured.push_back(config::formatGresCount(g));
  }
  return "gres/gpu: " + std::to_string(extra.size()) + " detected device(s) not in gantry.conf Gres=" +
         (configured.empty() ? "(none)" : joinStrings(configured)) + " of node " + nodeName + ": " +
         joinStrings(extra, " ");
}

}  // namespace gantry::nodegres
