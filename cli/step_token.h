// The secret that ties an interactive step's streams to the srun that asked
// for it: srun makes one per step, hands it to the controller with
// CreateStep (the agents keep it in root-only step files), and accepts a
// node's stream only when its first message carries it.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <string>
#include <string_view>

#include "common/util/result.h"

namespace gantry::cli {

inline constexpr size_t kStepTokenBytes = 32;

// kStepTokenBytes from the kernel's CSPRNG (getrandom), as 64 lowercase hex
// digits. Fails only when the kernel gives no random bytes.
Result<std::string> newStepToken();

// Compares in time that depends only on the lengths, never on where the
// two first differ, so a caller cannot find the token byte by byte.
bool sameToken(std::string_view given, std::string_view expected);

}  // namespace gantry::cli
