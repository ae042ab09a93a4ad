// TEMPORARY: stands in for the core's drain_admin.cpp until it lands, so
// the RPC edge and the CLI can be built and tested. Dropped at merge.
#include "controller/core/controller_core.h"

namespace gantry::core {

void ControllerCore::updateTres(v1::UpdateTresRequest, auth::Identity, Reply<v1::UpdateTresResponse> reply) {
  reply(Error{ErrorCode::Unavailable, "UpdateTres is not wired into the core yet"});
}

void ControllerCore::listDrainedTres(v1::ListDrainedTresRequest, auth::Identity,
                                     Reply<v1::ListDrainedTresResponse> reply) {
  reply(v1::ListDrainedTresResponse{});
}

}  // namespace gantry::core
