// -w/--nodelist and -x/--exclude of a JobSpec (required_nodes,
// excluded_nodes: host list expressions) as selection's NodeLists, with
// Slurm's refusals at submission:
//  - a name no configured node has, a malformed expression, or a node that
//    is both required and excluded: "Invalid node name specified";
//  - a job step whose -w list is longer than its maximum node count:
//    "Requested node configuration is not available" (a job treats such a
//    list as the nodes to choose from, as Slurm does).
// A job (or step) that gives no minimum node count gets one node per
// required name; one whose minimum is below the list's length picks its
// nodes from the list (NodeLists::candidates). Whether a required node is
// in the job's partition is selection's question (canEverRun says Never).
//
// Pure: node names reach it through `lookup`; the cost is the length of
// the lists, never the cluster's size.
#pragma once

#include <functional>
#include <string>

#include "common/util/result.h"
#include "controller/select/request.h"
#include "gantry/v1/types.pb.h"

namespace gantry::core {

inline constexpr const char* kInvalidNodeName = "Invalid node name specified";

// The selection index of a configured node, or -1 when none has the name.
using NodeLookup = std::function<int(const std::string& name)>;

enum class NodeListUse { Job, Step };

// Sets request.nodeLists and, where the list decides it, request.minNodes
// (request already holds the spec's counts, from jobSpecToRequest).
Status applyRequestedNodes(const v1::JobSpec& spec, NodeListUse use, const NodeLookup& lookup,
                           select::Request& request);

}  // namespace gantry::core
