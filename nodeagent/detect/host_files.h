// Reading a node's /proc, /sys and /dev through a host root, so the same code
// runs on a real node (root "/") and against fixture trees in tests.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::detect {

// Joins the host root and an absolute host path ("/sys/bus/pci/...").
std::string hostPath(const std::string& hostRoot, const std::string& path);

// Whole file, or nullopt when it cannot be read.
std::optional<std::string> readText(const std::string& file);

// First line without its newline and surrounding blanks; nullopt if unreadable.
std::optional<std::string> readLine(const std::string& file);

// Names of the entries of a directory, sorted; empty when it does not exist.
std::vector<std::string> listDir(const std::string& dir);

bool pathExists(const std::string& path);

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}. Fails naming `what` and the bad piece.
Result<std::vector<int>> parseCpuList(const std::string& text, const std::string& what);

// Canonical PCI address "dddd:bb:dd.f" in lower case. Accepts NVML's eight
// digit domain ("00000000:17:00.0") and a missing domain ("17:00.0").
std::string normalizeBusId(const std::string& busId);

// "key<sep>value" lines -> value of `key` (trimmed), e.g. "Model:" in the
// NVIDIA driver's information file or "PCI_SLOT_NAME=" in a uevent.
std::optional<std::string> findKeyedValue(const std::string& text, const std::string& keyWithSeparator);

std::string trim(const std::string& text);

// Compresses sorted ids into "0-3,8".
std::string formatIdList(const std::vector<int>& ids);

}  // namespace gantry::detect
