#include "common/accounting/tracked_tres.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace gantry::accounting {

namespace {

// Tracked on every cluster; AccountingStorageTRES cannot remove them.
constexpr std::array<std::string_view, 8> kAlwaysTracked = {"billing", "cpu",  "energy", "fs/disk",
                                                             "mem",     "node", "pages",  "vmem"};

constexpr std::array<std::string_view, 12> kKnownTypes = {"bb",      "billing", "cpu",  "energy", "fs",    "gres",
                                                          "ic",      "license", "mem",  "node",   "pages", "vmem"};

// Types whose TRES only exist with a name: gres/gpu, license/ansys, bb/cray.
constexpr std::array<std::string_view, 3> kNamedTypes = {"bb", "gres", "license"};

template <size_t N>
bool contains(const std::array<std::string_view, N>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "GRES/gpu:A100" -> "gres/gpu:A100": the type is case-free, the name is not.
std::string canonical(std::string_view tres) {
  size_t slash = tres.find('/');
  if (slash == std::string_view::npos) return lower(tres);
  return lower(tres.substr(0, slash)) + std::string(tres.substr(slash));
}

std::string trimmed(std::string_view text) {
  size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  size_t last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

}  // namespace

TrackedTres::TrackedTres() : names_(kAlwaysTracked.begin(), kAlwaysTracked.end()) {}

bool TrackedTres::tracks(std::string_view tres) const { return names_.count(canonical(tres)) > 0; }

Result<TrackedTres> trackedTresFrom(const std::vector<std::string>& configured) {
  TrackedTres tracked;
  for (const std::string& raw : configured) {
    std::string entry = canonical(trimmed(raw));
    if (entry.empty()) return Error("AccountingStorageTRES: empty entry");
    size_t slash = entry.find('/');
    std::string type = entry.substr(0, slash);
    std::string name = slash == std::string::npos ? "" : entry.substr(slash + 1);
    if (!contains(kKnownTypes, type)) {
      return Error("AccountingStorageTRES: '" + raw +
                   "' is not a known TRES type (bb, billing, cpu, energy, fs, gres, ic, license, mem, node, pages, "
                   "vmem)");
    }
    if (contains(kNamedTypes, type) && name.empty()) {
      return Error("AccountingStorageTRES: '" + raw + "' needs a name, as in " + type + "/NAME");
    }
    tracked.names_.insert(entry);
    // A tracked GPU brings its usage TRES with it; a typed GPU alone does not.
    if (entry == "gres/gpu") {
      tracked.names_.insert("gres/gpumem");
      tracked.names_.insert("gres/gpuutil");
    }
  }
  return tracked;
}

bool drainedTresCounts(const TrackedTres& tracked, std::string_view drainedTres) {
  std::string tres = canonical(drainedTres);
  if (tres == "cpu" || tres == "mem") return true;
  if (tracked.tracks(tres)) return true;
  size_t colon = tres.find(':');
  return tres.rfind("gres/", 0) == 0 && colon != std::string::npos && tracked.tracks(tres.substr(0, colon));
}

bool drainOpensEvent(const TrackedTres& tracked, const std::vector<std::string>& drainedTres) {
  return std::any_of(drainedTres.begin(), drainedTres.end(),
                     [&](const std::string& tres) { return drainedTresCounts(tracked, tres); });
}

}  // namespace gantry::accounting
