// --exclusive=user: a node shared only among the jobs of one user. The
// node keeps a count of the allocations each user holds on it; this rule
// says whether one more job may join.
#pragma once

#include <cstdint>
#include <map>

namespace gantry::select {

struct UserGrants {
  int grants = 0;         // allocations of this user on the node
  int userExclusive = 0;  // how many of them asked --exclusive=user
};

// Why a job of `uid` may not join a node whose allocations are `byUser`,
// or null when it may: an --exclusive=user job needs a node without other
// users' jobs, and any job is kept off a node where another user holds an
// --exclusive=user job. Jobs of one user always share.
const char* userSharingRule(const std::map<uint32_t, UserGrants>& byUser, uint32_t uid, bool exclusiveUser);

}  // namespace gantry::select
