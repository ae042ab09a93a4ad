// The text `gantryd -C` and `gantryd -G` print.
#pragma once

#include <string>
#include <vector>

#include "nodeagent/detect/hardware.h"
#include "nodeagent/gres/records.h"

namespace gantry::nodegres {

// "NodeName=node0 CPUs=32 Boards=1 SocketsPerBoard=8 CoresPerSocket=2
// ThreadsPerCore=2 RealMemory=128762 Parameters=l3cache_as_socket
// Gres=gpu:nvidia_a100-pcie-40gb:2" (Parameters= only when a socket-redefining
// parameter applied, Gres= only when GPUs were detected).
std::string formatNodeLine(const std::string& nodeName, const detect::CpuTopology& topology,
                           const std::vector<detect::DetectedGpu>& gpus);

// "gpu:a:2,gpu:b:1": detected GPUs per type, in device order.
std::string formatDetectedGres(const std::vector<detect::DetectedGpu>& gpus);

// One line per record, in device order:
// "Name=gpu Type=a100 Count=1 Index=0 File=/dev/nvidia0 Cores=0-15
//  Links=-1,2 UUID=GPU-... Flags=env_uuid ChunkSizes=2,4 ChunkOrder=0,1,2,3
//  DmemRegion=... DmemSlice=1000MiB"; empty fields are left out.
std::string formatRecords(const std::vector<GresRecord>& records);

}  // namespace gantry::nodegres
