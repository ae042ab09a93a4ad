// Translates a submitted JobSpec into the selection library's Request,
// refusing specs that make no sense with a message naming the option.
#pragma once

#include "common/config/gantry_conf.h"
#include "common/util/result.h"
#include "controller/select/cluster.h"
#include "gantry/v1/types.pb.h"

namespace gantry::core {

Result<select::Request> jobSpecToRequest(const v1::JobSpec& spec, const config::GantryConf& conf);

}  // namespace gantry::core
