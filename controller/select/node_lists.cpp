#include "controller/select/node_lists.h"

#include <algorithm>

namespace gantry::select {

namespace {
bool listed(const std::vector<int>& sorted, int node) { return std::binary_search(sorted.begin(), sorted.end(), node); }
}  // namespace

bool isRequired(const NodeLists& lists, int node) { return listed(lists.required, node); }

bool isExcluded(const NodeLists& lists, int node) { return listed(lists.excluded, node); }

bool offeredInSearch(const NodeLists& lists, int node) {
  if (lists.empty()) return true;
  if (isRequired(lists, node) || isExcluded(lists, node)) return false;
  return lists.candidates.empty() || listed(lists.candidates, node);
}

bool holdsRequired(const NodeLists& lists, const Allocation& allocation) {
  for (int node : lists.required) {
    bool held = std::any_of(allocation.nodes.begin(), allocation.nodes.end(),
                            [node](const NodeGrant& grant) { return grant.node == node; });
    if (!held) return false;
  }
  return true;
}

}  // namespace gantry::select
