// Whether a job's size can ever fit its partition, checked at submission
// with Slurm's refusal texts, which scripts grep for: more nodes than the
// partition has, or a minimum node count above the maximum, is "Node count
// specification invalid"; more CPUs than all of the partition's nodes hold
// together is "More processors requested than permitted". A task larger
// than every node is left to selection, which answers "Requested node
// configuration is not available" as Slurm does.
#pragma once

#include <cstdint>

#include "common/util/result.h"

namespace gantry::core {

inline constexpr const char* kNodeCountInvalid = "Node count specification invalid";
inline constexpr const char* kTooManyProcessors = "More processors requested than permitted";

struct JobSize {
  int64_t minNodes = 1;
  int64_t maxNodes = 0;  // 0: no maximum given
  int64_t minCpus = 1;   // tasks (or tasks per node times nodes) times CPUs per task
  int64_t cpusPerTask = 1;
};

struct PartitionSize {
  int64_t nodes = 0;
  int64_t cpus = 0;          // all CPUs of its nodes
  int64_t largestNodeCpus = 0;
};

Status checkPartitionFit(const JobSize& job, const PartitionSize& partition);

}  // namespace gantry::core
