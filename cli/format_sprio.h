// sprio's columns: a pending job's priority and its weighted (or, with
// -n, normalized) factors, with Slurm's letters and default formats. Pure.
#pragma once

#include <string>
#include <vector>

#include "cli/format_fields.h"
#include "gantry/v1/types.pb.h"

namespace gantry::cli {

// The site's PriorityWeight* values, as GetConfig reports them.
struct PriorityWeightsShown {
  uint64_t age = 0, fairshare = 0, jobSize = 0, partition = 0, qos = 0;
};

// Slurm's default: id and partition, the user with -u, the priority, then
// a column for each factor whose weight is not 0; -l shows every column.
LineFormat defaultSprioFormat(const PriorityWeightsShown& weights, bool normalized, bool withUser, bool longList);
Result<LineFormat> parseSprioFormat(const std::string& format);
std::vector<ColumnName> sprioColumns();

std::string renderSprio(const LineFormat& format, const std::vector<gantry::v1::Job>& jobs, bool header);
// sprio -w: the header and one "Weights" line under the factor columns.
std::string renderSprioWeights(const LineFormat& format, const PriorityWeightsShown& weights, bool header);

}  // namespace gantry::cli
