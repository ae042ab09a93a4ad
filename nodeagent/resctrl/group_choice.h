// Which of the three resctrl groups a job's steps join on one node. Pure:
// the job's GPUs on the node and the sockets they are attached to in,
// the group and the figures worth logging out.
//
// Rules: a job owning the whole node joins no group; no GPU -> cpu_only; at
// most one GPU on every socket -> gpu_one_per_socket; two or more on some
// socket -> gpu_two_per_socket. Shards and MPS slices count as their GPU,
// once per device. A GPU attached to several sockets counts on each; one
// with unknown sockets (no File, or no known CPUs) counts on all of them.
#pragma once

#include <string>
#include <vector>

namespace gantry::resctrl {

enum class ResctrlGroup { kNone, kCpuOnly, kGpuOnePerSocket, kGpuTwoPerSocket };

// "cpu_only", "gpu_one_per_socket", "gpu_two_per_socket"; "" for kNone.
std::string groupName(ResctrlGroup group);

struct GpuOnNode {
  int device_index = 0;      // the physical device; shares of one device repeat it
  std::vector<int> sockets;  // empty = unknown, counts on every socket
};

struct JobOnNode {
  // Decided by the controller's selection (NodeGrant::wholeNode, sent as
  // LaunchStepRequest.job_whole_node): plain --exclusive, --exclusive=topo
  // or an OverSubscribe=EXCLUSIVE partition, but not --exclusive in a
  // partition forcing sharing (FORCE:N, N > 1), nor --exclusive=user|mcs.
  bool owns_whole_node = false;
  int socket_count = 1;  // sockets the node agent detected
  std::vector<GpuOnNode> gpus;
};

struct GroupChoice {
  ResctrlGroup group = ResctrlGroup::kNone;
  int gpu_count = 0;                // distinct devices
  int most_gpus_on_one_socket = 0;  // the busiest socket
};

GroupChoice chooseResctrlGroup(const JobOnNode& job);

// "resctrl: job 12 on n1 placed in gpu_two_per_socket (gpus=3 max_gpus_per_socket=2)"
std::string placementLogLine(uint64_t job_id, const std::string& node, const GroupChoice& choice);

}  // namespace gantry::resctrl
