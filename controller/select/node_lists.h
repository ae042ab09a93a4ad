// How -w/--nodelist and -x/--exclude (Request::nodeLists) steer selection.
//
// Rules, in the order a search applies them:
//  - required nodes are offered before any other; the job is placed only
//    when every one of them takes its share (otherwise it waits, NotNow,
//    or can never run, Never, when even idle they cannot);
//  - with candidates, only they are offered (a -w list longer than the
//    job's minimum node count, which Slurm treats the same way);
//  - excluded nodes are never offered, whatever else the job could get;
//  - every other node is offered in the search's own order, after the
//    required ones.
//
// Lookups are binary searches in the short sorted lists, so a job without
// lists pays one empty() test per node offered. Pure; no state.
#pragma once

#include <vector>

#include "controller/select/cluster.h"

namespace gantry::select {

bool isRequired(const NodeLists& lists, int node);
bool isExcluded(const NodeLists& lists, int node);

// Whether the general search (after the required nodes were offered) may
// offer `node`: not required (offered already), not excluded, and one of
// the candidates when there are any.
bool offeredInSearch(const NodeLists& lists, int node);

// Whether `allocation` holds every required node.
bool holdsRequired(const NodeLists& lists, const Allocation& allocation);

}  // namespace gantry::select
