// Device links of one node as a graph over device indexes, and the exact
// search for the best-linked set of devices.
//
// Why exact: a greedy pick can miss an idle linked set that exists. Nodes
// hold at most a few dozen devices, so a depth-first search over bitmasks
// with pruning finds the set with the most link capacity in microseconds.
#pragma once

#include <optional>
#include <vector>

#include "common/gres/device.h"

namespace gantry::gres {

class LinkGraph {
 public:
  LinkGraph() = default;
  // Device i's `links` entry j names the j-th device of the same GRES name
  // on the node (in index order); it is mapped to node device indexes here.
  // Entries that are absent, negative or out of range count as "no link".
  static LinkGraph fromDevices(const std::vector<DeviceInfo>& devices);

  bool hasLinks() const { return hasLinks_; }
  int capacity(int a, int b) const { return capacity_[a * size_ + b]; }
  DeviceMask linkedTo(int device) const { return adjacent_[device]; }
  // True when every pair of devices in `mask` is linked (trivially for <= 1).
  bool allPairwiseLinked(DeviceMask mask) const;
  // Sum of the capacities of every pair inside `mask`.
  long totalCapacity(DeviceMask mask) const;

 private:
  int size_ = 0;
  bool hasLinks_ = false;
  std::vector<int> capacity_;
  std::vector<DeviceMask> adjacent_;

  friend class LinkSearch;
};

enum class LinkMode {
  Prefer,   // most link capacity, any set if nothing is linked
  Enforce,  // every pair linked, or nothing
  Ignore,   // lowest indexes
};

struct LinkPickOptions {
  LinkMode mode = LinkMode::Prefer;
  // Search steps before the best set found so far is returned; only very
  // large candidate sets reach it (then Enforce may miss a rare clique).
  long stepBudget = 200000;
};

// Picks `count` devices out of `candidates`. Returns nothing when fewer are
// free, or, under Enforce with count > 1, when no pairwise linked set exists.
std::optional<DeviceMask> pickDevices(const LinkGraph& graph, DeviceMask candidates,
                                      int count, const LinkPickOptions& options);

}  // namespace gantry::gres
