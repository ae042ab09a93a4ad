// The GRES records a node agent would use, one line per record in device
// order, as `gantryd -G` prints them.
#pragma once

#include <string>

#include "common/config/gres_conf.h"

namespace gantry::config {

// One line per device (a File range becomes one line per file; MultipleFiles
// is one device; a line without files is one record):
//   Gres Name=gpu Type=a100 Count=1 Index=0 File=/dev/nvidia0 Cores=0-15
//   Links=-1,1 Flags=env_uuid ChunkSizes=2,4 ChunkOrder=0,1,2,3 DmemRegion=off
// Fields that are not set are left out. Index counts devices per Name.
std::string formatGresRecords(const GresConf& conf);

}  // namespace gantry::config
