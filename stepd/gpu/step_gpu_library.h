// The GPU management library a step's launcher holds while the step runs
// (docs/hardware.md, "GPU libraries after detection"). The agent decides
// which one, if any, and names it in spec.json (StepSpec::gpu_library);
// gantrystepd opens it before the tasks start and closes it at the step's
// end, so that other processes may reset the GPUs again afterwards.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "nodeagent/detect/gpu_library.h"
#include "stepd/core/step_spec.h"

namespace gantry::stepd {

using StepLogLine = std::function<void(const std::string&)>;

// Opens and starts the library that `spec` names, logging one line either
// way. A library that cannot be opened does not fail the step (as Slurm,
// a node without NVML still runs jobs): it is logged and nullopt returned,
// as it is when the spec names none (then nothing is logged).
std::optional<detect::GpuLibraryHold> holdStepGpuLibrary(const GpuLibrarySpec* spec, const StepLogLine& log);

// Shuts the held library down and unloads it, logging that it did.
void releaseStepGpuLibrary(std::optional<detect::GpuLibraryHold>& hold, const StepLogLine& log);

}  // namespace gantry::stepd
