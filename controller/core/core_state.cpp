#include "controller/core/core_state.h"

#include <algorithm>

namespace gantry::core {

void CoreState::rebuildPartitions() {
  partitionViews.clear();
  partitionSizes.clear();
  partitionsOfNode.assign(nodes.size(), {});
  for (const auto& partition : conf.partitions) {
    select::PartitionView view;
    PartitionSize& size = partitionSizes[partition.name];
    size.nodes = static_cast<int64_t>(partition.nodes.size());
    for (const auto& name : partition.nodes) {
      auto found = nodeIndex.find(name);
      if (found == nodeIndex.end()) continue;
      view.nodes.push_back(nodes[found->second].selectIndex);
      partitionsOfNode[found->second].push_back(partition.name);
      size.cpus += nodes[found->second].conf.cpus;
      size.largestNodeCpus = std::max<int64_t>(size.largestNodeCpus, nodes[found->second].conf.cpus);
    }
    view.maxNodes = partition.maxNodes;
    view.exclusive = partition.overSubscribe == config::OverSubscribeMode::Exclusive;
    view.forcesSharing =
        partition.overSubscribe == config::OverSubscribeMode::Force && partition.overSubscribeCount > 1;
    // FORCE:N shares CPUs between up to N jobs of the partition, YES:N
    // between its -s/--oversubscribe jobs (Request::mayShare), with or
    // without gang scheduling (which then timeslices them), as Slurm does.
    view.overSubscribe = partition.cpuSharers();
    view.shareGroup = shareGroupOf(partition.name);
    partitionViews[partition.name] = std::move(view);
  }
}

}  // namespace gantry::core
