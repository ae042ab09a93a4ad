// Everything the controller core knows, in one place: the records, the
// selection Cluster that mirrors what they hold, and the running
// configuration. The ControllerCore decides, the EffectExecutor applies;
// both work on this state on the core's strand only.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/config/gantry_conf.h"
#include "controller/core/partition_fit.h"
#include "controller/core/records.h"
#include "controller/gang/partition_gang.h"
#include "controller/select/cluster.h"

namespace gantry::core {

struct CoreState {
  explicit CoreState(config::GantryConf& configuration)
      : conf(configuration),
        cluster(select::ClusterOptions{.allocateByCpu = configuration.select.crCpu,
                                       .allowSpecResourcesUsage = configuration.allowSpecResourcesUsage,
                                       .multipleSharingGresPj = configuration.select.multipleSharingGresPj,
                                       .wholeNodeCpus = configuration.selectType == "select/linear"}) {}

  config::GantryConf& conf;
  select::Cluster cluster;
  std::map<uint64_t, JobRecord> jobs;
  std::vector<NodeRecord> nodes;            // in gantry.conf order; never shrinks
  std::map<std::string, size_t> nodeIndex;  // name -> position in nodes
  uint64_t nextJobId = 1;
  // The records of each job array (by array job id): kept as records are
  // added and forgotten, so acting on an array never walks every job.
  std::map<uint64_t, std::set<uint64_t>> arrayMembers;
  void addJob(JobRecord record);  // into jobs (and arrayMembers)
  void eraseJob(uint64_t id);     // from jobs (and arrayMembers)
  // The record of task `task` of array `array`: the task's own, or the
  // array's record while that still holds the index pending; nullptr when
  // the array has no such task (or is forgotten).
  const JobRecord* arrayTaskRecord(uint64_t array, uint32_t task) const;
  // Partition membership, rebuilt when the configuration or the node list
  // changes (rebuildPartitions) so scheduling passes and node listings
  // never rescan every partition's node list.
  std::map<std::string, select::PartitionView> partitionViews;     // by partition name
  std::vector<std::vector<std::string>> partitionsOfNode;          // by position in nodes
  // What each partition's nodes add up to, for the check at submission
  // (partition_fit.h), so it never walks the node list.
  std::map<std::string, PartitionSize> partitionSizes;             // by partition name

  // The timeslicer of each over-subscribed partition under gang scheduling
  // (gang_driver.cpp), with the node count its capacities were built for.
  // A partition that stops being timesliced keeps its timeslicer until its
  // last gang job ends, so jobs that share resources never run together.
  struct GangPartition {
    gang::PartitionGang policy;
    int nodeCount = 0;
  };
  std::map<std::string, GangPartition> gangs;  // by partition name
  // Jobs the timeslicer let in whose resume waits until the suspensions
  // on their nodes are acknowledged, in the order they were let in.
  std::vector<uint64_t> gangResumesWaiting;

  // A stable id per partition name for selection's share groups (CPUs are
  // over-subscribed only between jobs of one partition); never reused.
  std::map<std::string, int> shareGroups;
  int shareGroupOf(const std::string& partition) {
    auto [entry, added] = shareGroups.try_emplace(partition, static_cast<int>(shareGroups.size()));
    return entry->second;
  }

  void rebuildPartitions();
  const select::PartitionView* partitionView(const std::string& name) const {
    auto found = partitionViews.find(name);
    return found == partitionViews.end() ? nullptr : &found->second;
  }

  JobRecord* findJob(uint64_t id) {
    auto found = jobs.find(id);
    return found == jobs.end() ? nullptr : &found->second;
  }
  const JobRecord* findJob(uint64_t id) const {
    auto found = jobs.find(id);
    return found == jobs.end() ? nullptr : &found->second;
  }
  NodeRecord* findNode(const std::string& name) {
    auto found = nodeIndex.find(name);
    return found == nodeIndex.end() ? nullptr : &nodes[found->second];
  }
  const NodeRecord* findNode(const std::string& name) const {
    auto found = nodeIndex.find(name);
    return found == nodeIndex.end() ? nullptr : &nodes[found->second];
  }
  // The node record behind a selection index.
  NodeRecord& nodeAt(int selectIndex) { return nodes[nodeIndex.at(cluster.node(selectIndex).name)]; }
};

}  // namespace gantry::core
