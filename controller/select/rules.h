// The reasons a node is turned down, as named constants so the trace
// (DebugFlags=SelectType) and tests speak the same words.
#pragma once

namespace gantry::select::rules {

inline constexpr const char* kNotInCluster = "node index is not in the cluster";
inline constexpr const char* kUnusable = "node breaks the selection limits (more than 64 devices)";
inline constexpr const char* kUnavailable = "node is down or drained";
inline constexpr const char* kHeldWhole = "node is allocated whole to another job";
inline constexpr const char* kNotIdle = "whole-node allocation needs an idle node";
inline constexpr const char* kHeldByOtherUser = "node runs another user's --exclusive=user job";
inline constexpr const char* kOtherUsersJobs = "--exclusive=user: node runs jobs of other users";
inline constexpr const char* kCpus = "not enough free cpus";
inline constexpr const char* kMemory = "not enough free memory";
inline constexpr const char* kNoSuchGres = "node has no GRES of the requested name and type";
inline constexpr const char* kDevices = "not enough free devices";
inline constexpr const char* kCountGres = "not enough of a count-only GRES";
inline constexpr const char* kLinks = "enforce-links: no free pairwise linked set of the requested size";
inline constexpr const char* kLinksWholeNode = "enforce-links: a whole-node allocation would include unlinked devices";
inline constexpr const char* kPerSocket = "not enough free devices on enough sockets for --gpus-per-socket";
inline constexpr const char* kBinding = "enforce-binding: not enough free cpus on the sockets of the devices";
inline constexpr const char* kChunkCount = "chunks: count is neither a chunk size nor the whole domain";
inline constexpr const char* kChunkSpread = "chunks: a job that may span nodes must take the whole domain";
inline constexpr const char* kChunkUnfixed = "chunks: the request does not fix the device count per node";
inline constexpr const char* kChunkPerSocket = "chunks: --gpus-per-socket needs a whole-node allocation";
inline constexpr const char* kChunkMixedTypes = "chunks: untyped request on a node mixing chunked types";
inline constexpr const char* kChunkNoneFree = "chunks: no free aligned chunk of that size";
inline constexpr const char* kSharesOneGpu = "shared GRES: no single GPU has enough free shares";
inline constexpr const char* kShares = "shared GRES: not enough free shares on the node's GPUs";
inline constexpr const char* kNoTasks = "node cannot take a task of this job";
inline constexpr const char* kExcluded = "-x/--exclude names the node";
inline constexpr const char* kNotPartitionMember = "node is not in the partition";

}  // namespace gantry::select::rules
