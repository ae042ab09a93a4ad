#include "controller/select/user_sharing.h"

#include "controller/select/rules.h"

namespace gantry::select {

const char* userSharingRule(const std::map<uint32_t, UserGrants>& byUser, uint32_t uid, bool exclusiveUser) {
  for (const auto& [other, held] : byUser) {
    if (other == uid || held.grants <= 0) continue;
    if (held.userExclusive > 0) return rules::kHeldByOtherUser;
    if (exclusiveUser) return rules::kOtherUsersJobs;
  }
  return nullptr;
}

}  // namespace gantry::select
