// A partition's TRESBillingWeights ("CPU=1.0,Mem=0.25G,GRES/gpu=2.0"): what
// a job's TRES count for in billing units, the measure fair share charges.
// Memory's weight is per MB, or per GB with a G suffix (per TB with T).
// No weights: a job bills its CPUs, as in Slurm.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/util/result.h"

namespace gantry::config {

struct BillingWeights {
  // Lowercase TRES name ("cpu", "mem", "gres/gpu", "node") -> weight per
  // unit (memory: per MB).
  std::map<std::string, double> perUnit;
  bool empty() const { return perUnit.empty(); }
};

// Refused, naming the item, for anything that is not NAME=NUMBER[K|M|G|T].
Result<BillingWeights> parseBillingWeights(std::string_view text);

// A job's billing units: the weighted sum of what it holds (TRES name ->
// count, memory in MB); its CPUs when there are no weights.
double billingUnits(const BillingWeights& weights, const std::map<std::string, uint64_t>& held);

}  // namespace gantry::config
