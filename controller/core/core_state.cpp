#include "controller/core/core_state.h"

namespace gantry::core {

void CoreState::rebuildPartitions() {
  partitionViews.clear();
  partitionsOfNode.assign(nodes.size(), {});
  for (const auto& partition : conf.partitions) {
    select::PartitionView view;
    for (const auto& name : partition.nodes) {
      auto found = nodeIndex.find(name);
      if (found == nodeIndex.end()) continue;
      view.nodes.push_back(nodes[found->second].selectIndex);
      partitionsOfNode[found->second].push_back(partition.name);
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
