// Which TRES accounting tracks, decided from AccountingStorageTRES
// (GantryConf::accountingStorageTres, already split on commas).
//
// Some TRES are tracked whatever the key says and cannot be turned off:
// billing, cpu, energy, fs/disk, mem, node, pages, vmem. The key only adds
// to that list. Naming gres/gpu also tracks gres/gpumem and gres/gpuutil;
// either of those may also be named on its own. A typed GRES
// (gres/gpu:a100) is tracked under that exact name.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"

namespace gantry::accounting {

class TrackedTres {
 public:
  // Only the always-tracked TRES.
  TrackedTres();

  // True when `tres` (accounting spelling: "cpu", "fs/disk", "gres/gpu",
  // "gres/gpu:a100") is tracked. The type part before '/' is matched
  // without regard to case; GRES names and types are matched as written.
  bool tracks(std::string_view tres) const;
  bool tracksGpuMem() const { return tracks("gres/gpumem"); }
  bool tracksGpuUtil() const { return tracks("gres/gpuutil"); }

  // Every tracked TRES, sorted by name.
  std::vector<std::string> names() const { return {names_.begin(), names_.end()}; }

 private:
  friend Result<TrackedTres> trackedTresFrom(const std::vector<std::string>& configured);
  std::set<std::string> names_;
};

// The tracked set for an AccountingStorageTRES list. Refused, naming the
// entry: an empty entry, a type accounting does not know (the known ones are
// bb, billing, cpu, energy, fs, gres, ic, license, mem, node, pages, vmem),
// and bb, gres or license without a name ("gres" or "gres/").
Result<TrackedTres> trackedTresFrom(const std::vector<std::string>& configured);

// Whether a drained TRES counts in the node's accounting event. CPU and
// memory ("cpu", "mem") always count. A GRES ("gres/gpu", "gres/gpu:a100")
// counts when it is tracked, or, for a typed one, when its untyped name is
// tracked. Anything else counts only when tracked.
bool drainedTresCounts(const TrackedTres& tracked, std::string_view drainedTres);

// Whether draining this set of TRES opens a node event: true when at least
// one of them counts. A drain of only untracked GRES records no event.
bool drainOpensEvent(const TrackedTres& tracked, const std::vector<std::string>& drainedTres);

}  // namespace gantry::accounting
