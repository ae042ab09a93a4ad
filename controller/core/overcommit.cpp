#include "controller/core/overcommit.h"

#include <algorithm>

namespace gantry::core {

select::Request overcommitted(select::Request request) {
  request.ntasks = std::max(request.minNodes, 1);
  if (request.ntasksPerNode > 0) request.ntasksPerNode = 1;
  return request;
}

void spreadTasks(int ntasks, std::vector<select::NodeGrant>& nodes) {
  if (nodes.empty()) return;
  int count = static_cast<int>(nodes.size());
  int total = std::max(ntasks, count);
  for (int i = 0; i < count; ++i) nodes[i].tasks = total / count + (i < total % count ? 1 : 0);
}

}  // namespace gantry::core
