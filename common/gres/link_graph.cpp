#include "common/gres/link_graph.h"

#include <algorithm>
#include <bit>

namespace gantry::gres {

namespace {

DeviceMask lowestBits(DeviceMask candidates, int count) {
  DeviceMask picked = 0;
  for (int i = 0; i < count; ++i) {
    DeviceMask low = candidates & (~candidates + 1);
    picked |= low;
    candidates &= candidates - 1;
  }
  return picked;
}

}  // namespace

LinkGraph LinkGraph::fromDevices(const std::vector<DeviceInfo>& devices) {
  LinkGraph graph;
  int n = static_cast<int>(devices.size());
  if (n > kMaxDevicesPerNode) n = kMaxDevicesPerNode;
  graph.size_ = n;
  graph.capacity_.assign(static_cast<size_t>(n) * n, 0);
  graph.adjacent_.assign(n, 0);
  for (int a = 0; a < n; ++a) {
    // The j-th device of the same name, as a node device index.
    std::vector<int> sameName;
    for (int b = 0; b < n; ++b)
      if (devices[b].name == devices[a].name) sameName.push_back(b);
    const auto& links = devices[a].links;
    for (size_t j = 0; j < links.size() && j < sameName.size(); ++j) {
      int b = sameName[j];
      if (b == a || links[j] <= 0) continue;
      graph.capacity_[a * n + b] = links[j];
    }
  }
  // A link counts when either end reports it; capacity is the larger report.
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      int c = std::max(graph.capacity_[a * n + b], graph.capacity_[b * n + a]);
      graph.capacity_[a * n + b] = graph.capacity_[b * n + a] = c;
      if (c > 0) {
        graph.adjacent_[a] |= bitOf(b);
        graph.adjacent_[b] |= bitOf(a);
        graph.hasLinks_ = true;
      }
    }
  return graph;
}

bool LinkGraph::allPairwiseLinked(DeviceMask mask) const {
  for (DeviceMask rest = mask; rest; rest &= rest - 1) {
    int d = std::countr_zero(rest);
    if (d >= size_) return false;
    if ((mask & ~bitOf(d) & ~adjacent_[d]) != 0) return false;
  }
  return true;
}

long LinkGraph::totalCapacity(DeviceMask mask) const {
  long total = 0;
  for (DeviceMask a = mask; a; a &= a - 1) {
    int i = std::countr_zero(a);
    for (DeviceMask b = a & (a - 1); b; b &= b - 1) total += capacity(i, std::countr_zero(b));
  }
  return total;
}

// Depth-first branch and bound over candidate bitmasks. Devices are tried in
// ascending order so ties go to the lowest indexes.
class LinkSearch {
 public:
  LinkSearch(const LinkGraph& graph, int count, const LinkPickOptions& options)
      : graph_(graph), count_(count), options_(options) {}

  std::optional<DeviceMask> run(DeviceMask candidates) {
    // The bound uses the widest link among the candidates only.
    for (DeviceMask a = candidates; a; a &= a - 1) {
      int i = std::countr_zero(a);
      for (DeviceMask b = candidates & graph_.adjacent_[i]; b; b &= b - 1)
        maxCapacity_ = std::max(maxCapacity_, graph_.capacity(i, std::countr_zero(b)));
    }
    if (maxCapacity_ == 0 && options_.mode == LinkMode::Prefer) return lowestBits(candidates, count_);
    extend(0, 0, 0, candidates);
    if (!found_) return std::nullopt;
    return best_;
  }

 private:
  void extend(DeviceMask chosen, int chosenCount, long score, DeviceMask open) {
    // Past the budget keep the best set found; far past it, give up.
    if (++steps_ > options_.stepBudget && (found_ || steps_ > 10 * options_.stepBudget)) return;
    if (chosenCount == count_) {
      if (!found_ || score > bestScore_) {
        found_ = true;
        best_ = chosen;
        bestScore_ = score;
      }
      return;
    }
    int remaining = count_ - chosenCount;
    if (std::popcount(open) < remaining) return;
    if (found_) {
      long bound = score + static_cast<long>(maxCapacity_) *
                               (static_cast<long>(remaining) * chosenCount +
                                static_cast<long>(remaining) * (remaining - 1) / 2);
      if (bound <= bestScore_) return;
    }
    for (DeviceMask rest = open; rest; rest &= rest - 1) {
      if (std::popcount(rest) < remaining) return;
      int d = std::countr_zero(rest);
      long gained = 0;
      for (DeviceMask c = chosen; c; c &= c - 1) gained += graph_.capacity(d, std::countr_zero(c));
      DeviceMask next = (rest & (rest - 1));
      if (options_.mode == LinkMode::Enforce) next &= graph_.adjacent_[d];
      extend(chosen | bitOf(d), chosenCount + 1, score + gained, next);
      if (steps_ > options_.stepBudget && found_) return;
    }
  }

  const LinkGraph& graph_;
  int count_;
  LinkPickOptions options_;
  long steps_ = 0;
  bool found_ = false;
  DeviceMask best_ = 0;
  long bestScore_ = -1;
  int maxCapacity_ = 0;
};

std::optional<DeviceMask> pickDevices(const LinkGraph& graph, DeviceMask candidates,
                                      int count, const LinkPickOptions& options) {
  if (count <= 0) return DeviceMask{0};
  if (std::popcount(candidates) < count) return std::nullopt;
  if (count == 1 || options.mode == LinkMode::Ignore) return lowestBits(candidates, count);
  if (!graph.hasLinks()) {
    if (options.mode == LinkMode::Enforce) return std::nullopt;
    return lowestBits(candidates, count);
  }
  if (std::popcount(candidates) == count) {
    if (options.mode == LinkMode::Enforce && !graph.allPairwiseLinked(candidates))
      return std::nullopt;
    return candidates;
  }
  return LinkSearch(graph, count, options).run(candidates);
}

}  // namespace gantry::gres
