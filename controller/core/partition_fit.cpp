#include "controller/core/partition_fit.h"

#include <algorithm>
#include <string>

namespace gantry::core {

Status checkPartitionFit(const JobSize& job, const PartitionSize& partition) {
  if (job.maxNodes > 0 && job.minNodes > job.maxNodes) {
    return Error{std::string(kNodeCountInvalid) + ": minimum " + std::to_string(job.minNodes) +
                 " nodes is above the maximum " + std::to_string(job.maxNodes)};
  }
  // As in Slurm, the CPU count is checked before the node count, and
  // every node counts at least one CPU: -N beyond the partition's CPUs is
  // "More processors requested than permitted".
  int64_t minCpus = std::max<int64_t>(job.minCpus, job.minNodes);
  if (job.cpusPerTask <= partition.largestNodeCpus && minCpus > partition.cpus) {
    return Error{std::string(kTooManyProcessors) + ": " + std::to_string(minCpus) +
                 " CPUs requested, the partition's nodes have " + std::to_string(partition.cpus)};
  }
  if (job.minNodes > partition.nodes) {
    return Error{std::string(kNodeCountInvalid) + ": " + std::to_string(job.minNodes) +
                 " nodes requested, the partition has " + std::to_string(partition.nodes)};
  }
  return okStatus();
}

}  // namespace gantry::core
