// Translates a submitted JobSpec into the selection library's Request,
// refusing specs that make no sense with a message naming the option.
#pragma once

#include "common/config/gantry_conf.h"
#include "common/util/result.h"
#include "controller/select/cluster.h"
#include "gantry/v1/types.pb.h"

namespace gantry::core {

Result<select::Request> jobSpecToRequest(const v1::JobSpec& spec, const config::GantryConf& conf);

// A TresBind= value (scontrol update) under the rule submissions meet;
// the error is Slurm's "Invalid Trackable RESource (TRES) specification"
// followed by what is wrong.
Status checkTresBindValue(const std::string& tresBind);

// Whether the job may share CPUs in its partition: every job of an
// OverSubscribe=FORCE partition, the -s/--oversubscribe ones of a YES one.
bool maySharePartitionCpus(const config::PartitionConf* partition, const v1::JobSpec& spec);

}  // namespace gantry::core
