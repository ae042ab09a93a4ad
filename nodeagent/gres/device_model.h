// The merged records in the shape the scheduler's GRES model uses
// (common/gres/device.h), for the controller side of registration.
#pragma once

#include <vector>

#include "common/gres/device.h"
#include "nodeagent/gres/records.h"

namespace gantry::nodegres {

// One DeviceInfo per device record (records with files that are not shared
// GRES), in device order. Flags=explicit becomes explicitOnly.
std::vector<gres::DeviceInfo> toDeviceInfos(const std::vector<GresRecord>& records);

// One ChunkLayout per name and Type whose records set ChunkSizes, taken from
// the first such record. Records of a Type that disagree are not reconciled
// here: the controller compares them and drains (they are all in `records`).
std::vector<gres::ChunkLayout> toChunkLayouts(const std::vector<GresRecord>& records);

}  // namespace gantry::nodegres
