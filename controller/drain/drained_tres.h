// The drained-TRES record of one node: which devices, cores and amounts are
// out of service and why, and the saved device order that gives a GPU its
// identity. Plain values: the core stores every field with the node record
// and hands the record back to the functions of this folder.
//
// Pure: no I/O, no clock, no wire types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gantry::drain {

// Reason given to the drain of a device the agent no longer reports.
std::string notFoundReason(const std::string& gresName);  // "gres/gpu:not_found"

// Node reason while a registration is refused for its device order.
inline constexpr const char* kOrderMismatchReason = "GPU UUID order does not match the saved order";

// One drained device of a device GRES (gpu, nic, ...).
struct DeviceDrain {
  std::string gres;  // GRES name, "gpu"
  std::string type;  // the device's type, "" when untyped; kept for an empty slot
  int index = 0;     // saved-order index when the GRES has one, the agent's index otherwise
  // The device the drain belongs to when the GRES has a saved order (kept when
  // the device leaves and its slot is empty); "" without a saved order, where the drain belongs to the index.
  std::string uuid;
  std::string reason;
  bool notFound = false;  // set by reconciliation for an absent device, cleared when a device fills the slot
  bool operator==(const DeviceDrain&) const = default;
};

// One drained CPU. A drain always covers every thread of a core, so the
// record holds all of them; each counts toward the cpu limit.
struct CpuDrain {
  int cpu = 0;
  std::string reason;
  bool operator==(const CpuDrain&) const = default;
};

// A drained amount of memory or of a count-only GRES: one per TRES (per type
// for a typed GRES) with one reason, which a later Drain replaces.
struct CountDrain {
  std::string tres;  // "mem" (megabytes), "gres/bandwidth", "gres/bandwidth:lustre"
  uint64_t count = 0;
  std::string reason;
  bool operator==(const CountDrain&) const = default;
};

// One index of a saved device order.
struct SavedSlot {
  std::string uuid;  // the device at this index; for an empty slot the one that left
  std::string type;
  bool present = true;  // false: the agent no longer reports a device here (empty slot)
  bool operator==(const SavedSlot&) const = default;
};

// The order saved for a GRES whose every device has a UUID and a count of one.
struct SavedOrder {
  std::string gres;
  std::vector<SavedSlot> slots;  // slots[index]
  bool operator==(const SavedOrder&) const = default;
};

struct DrainedTres {
  std::vector<DeviceDrain> devices;     // sorted by (gres, index); one entry per index
  std::vector<CpuDrain> cpus;           // sorted by cpu
  std::vector<CountDrain> counts;       // sorted by tres
  std::vector<SavedOrder> savedOrders;  // sorted by gres
  // GRES whose last registration was refused for its order: the node is
  // drained with kOrderMismatchReason until a report fits or State=RESUME.
  std::vector<std::string> orderMismatch;
  bool operator==(const DrainedTres&) const = default;
};

// Anything drained at all (the node is then DEGRADED).
bool anythingDrained(const DrainedTres& record);

const SavedOrder* savedOrderOf(const DrainedTres& record, const std::string& gres);
SavedOrder* savedOrderOf(DrainedTres& record, const std::string& gres);
// Whether the drain sits on an empty slot of its GRES's saved order.
bool onEmptySlot(const DrainedTres& record, const DeviceDrain& drain);

const DeviceDrain* deviceDrainAt(const DrainedTres& record, const std::string& gres, int index);

// Whether a device of type `deviceType` is one of `named` (a TresName or
// MaxDrainedTres type): equal or a substring, any case, as registration
// matches configured types ("a100" names "nvidia_a100-sxm4-80gb"); "" names
// every type.
bool typeNames(const std::string& named, const std::string& deviceType);

// Restores the sort orders above after an edit.
void normalise(DrainedTres& record);

}  // namespace gantry::drain
