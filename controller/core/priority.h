// PriorityType=priority/multifactor, the pure part: a pending job's
// priority from how long it has waited, its size, its partition, its
// owner's fair share and its nice value, each factor between 0 and 1
// weighted by the site's PriorityWeight* keys, as Slurm adds them up.
// priority/basic (the default) orders jobs by --priority, then submission.
#pragma once

#include <cstdint>

#include "common/config/gantry_conf.h"

namespace gantry::core {

struct PriorityWeights {
  bool multifactor = false;  // PriorityType=priority/multifactor
  uint32_t age = 0, fairshare = 0, jobSize = 0, partition = 0, qos = 0;
  int64_t maxAgeSeconds = 7 * 86400;
  bool favorSmall = false;
};
PriorityWeights priorityWeightsOf(const config::GantryConf& conf);

// What one job's factors are made of.
struct PriorityInputs {
  int64_t waitedSeconds = 0;  // since it became eligible (0 while held or before --begin)
  int64_t cpus = 1;           // it asks for
  int64_t nodes = 1;          // at least
  int64_t clusterCpus = 1;
  int64_t clusterNodes = 1;
  double partition = 0;  // its partition's PriorityJobFactor over the largest one
  double fairshare = 0;  // its owner's fair-share factor (fair_share.h)
  int32_t nice = 0;
};

// The factors, each 0..1 (nice as given).
struct PriorityParts {
  double age = 0, fairshare = 0, jobSize = 0, partition = 0;
  int32_t nice = 0;
};
PriorityParts priorityParts(const PriorityInputs& inputs, const PriorityWeights& weights);

// The sum of the weighted factors less nice, as Slurm rounds it: at least
// 1 (0 is kept for held jobs), at most 2^32-1.
uint32_t priorityOf(const PriorityParts& parts, const PriorityWeights& weights);

}  // namespace gantry::core
