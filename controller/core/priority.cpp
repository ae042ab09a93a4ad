#include "controller/core/priority.h"

#include <algorithm>
#include <cmath>

namespace gantry::core {

PriorityWeights priorityWeightsOf(const config::GantryConf& conf) {
  return PriorityWeights{.multifactor = conf.priorityType == "priority/multifactor",
                         .age = conf.priorityWeightAge,
                         .fairshare = conf.priorityWeightFairshare,
                         .jobSize = conf.priorityWeightJobSize,
                         .partition = conf.priorityWeightPartition,
                         .qos = conf.priorityWeightQos,
                         .maxAgeSeconds = std::max<int64_t>(conf.priorityMaxAgeSeconds, 1),
                         .favorSmall = conf.priorityFavorSmall};
}

PriorityParts priorityParts(const PriorityInputs& in, const PriorityWeights& weights) {
  PriorityParts parts;
  parts.age = std::clamp(static_cast<double>(std::max<int64_t>(in.waitedSeconds, 0)) /
                             static_cast<double>(weights.maxAgeSeconds),
                         0.0, 1.0);
  parts.fairshare = std::clamp(in.fairshare, 0.0, 1.0);
  parts.partition = std::clamp(in.partition, 0.0, 1.0);
  // Slurm's job size without SMALL_RELATIVE_TO_TIME: the mean of the
  // job's part of the nodes and of the CPUs, or of what it leaves free
  // under PriorityFavorSmall.
  const double nodes = static_cast<double>(std::max<int64_t>(in.clusterNodes, 1));
  const double cpus = static_cast<double>(std::max<int64_t>(in.clusterCpus, 1));
  const double nodePart = std::min(static_cast<double>(in.nodes), nodes) / nodes;
  const double cpuPart = std::min(static_cast<double>(in.cpus), cpus) / cpus;
  parts.jobSize = weights.favorSmall ? ((1.0 - nodePart) + (1.0 - cpuPart)) / 2 : (nodePart + cpuPart) / 2;
  parts.jobSize = std::clamp(parts.jobSize, 0.0, 1.0);
  parts.nice = in.nice;
  return parts;
}

uint32_t priorityOf(const PriorityParts& parts, const PriorityWeights& weights) {
  double sum = parts.age * weights.age + parts.fairshare * weights.fairshare + parts.jobSize * weights.jobSize +
               parts.partition * weights.partition - static_cast<double>(parts.nice);
  if (sum < 1) return 1;
  if (sum >= 4294967295.0) return 4294967295u;
  return static_cast<uint32_t>(sum);
}

}  // namespace gantry::core
