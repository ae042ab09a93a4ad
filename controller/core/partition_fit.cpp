#include "controller/core/partition_fit.h"

#include <string>

namespace gantry::core {

Status checkPartitionFit(const JobSize& job, const PartitionSize& partition) {
  if (job.maxNodes > 0 && job.minNodes > job.maxNodes) {
    return Error{std::string(kNodeCountInvalid) + ": minimum " + std::to_string(job.minNodes) +
                 " nodes is above the maximum " + std::to_string(job.maxNodes)};
  }
  if (job.minNodes > partition.nodes) {
    return Error{std::string(kNodeCountInvalid) + ": " + std::to_string(job.minNodes) +
                 " nodes requested, the partition has " + std::to_string(partition.nodes)};
  }
  if (job.cpusPerTask <= partition.largestNodeCpus && job.minCpus > partition.cpus) {
    return Error{std::string(kTooManyProcessors) + ": " + std::to_string(job.minCpus) +
                 " CPUs requested, the partition's nodes have " + std::to_string(partition.cpus)};
  }
  return okStatus();
}

}  // namespace gantry::core
