#include "controller/drain/registration_check.h"

#include <algorithm>
#include <cctype>

#include "common/gres/chunks.h"

namespace gantry::drain {
namespace {

std::string lowerCase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool isShared(const std::string& name) {
  std::string n = lowerCase(name);
  return n == "shard" || n == "mps";
}

// A configured Type matches a registered one when it is equal or a substring
// of it, the rule AutoDetect names follow ("a100" matches
// "nvidia_a100-sxm4-80gb"). An untyped configuration counts every record.
bool typeMatches(const std::string& configured, const std::string& registered) {
  if (configured.empty()) return true;
  return lowerCase(registered).find(lowerCase(configured)) != std::string::npos;
}

std::string gresLabel(const std::string& name, const std::string& type) {
  return "gres/" + name + (type.empty() ? "" : ":" + type);
}

void addOnce(std::vector<std::string>& reasons, std::string reason) {
  if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) reasons.push_back(std::move(reason));
}

// Fewer GRES than gantry.conf promises drains the node. The spec also speaks
// of INVAL for a short first registration; that state belongs to the saved
// device order (absent devices), so here every short count is a DRAIN with
// the reason naming the GRES and both counts.
uint64_t totalOf(const std::vector<RegisteredGres>& registered, const std::string& name) {
  uint64_t total = 0;
  for (const auto& r : registered) {
    if (lowerCase(r.name) == lowerCase(name)) total += r.count;
  }
  return total;
}

uint64_t configuredTotalOf(const std::vector<config::GresCount>& configured, const std::string& name) {
  uint64_t total = 0;
  for (const auto& c : configured) {
    if (lowerCase(c.name) == lowerCase(name)) total += c.count;
  }
  return total;
}

void checkCounts(const RegistrationInput& input, std::vector<std::string>& reasons) {
  for (const auto& configured : input.configured) {
    bool byOrder = std::any_of(input.countedByOrder.begin(), input.countedByOrder.end(),
                               [&](const std::string& name) { return lowerCase(name) == lowerCase(configured.name); });
    // A device missing from such a GRES is the saved order's to judge; a
    // full count of the wrong types is still ours.
    if (byOrder && totalOf(input.registered, configured.name) < configuredTotalOf(input.configured, configured.name)) {
      continue;
    }
    uint64_t reported = 0;
    bool countOnly = true;
    for (const auto& r : input.registered) {
      if (lowerCase(r.name) != lowerCase(configured.name) || !typeMatches(configured.type, r.type)) continue;
      reported += r.count;
      if (r.files > 0) countOnly = false;
    }
    if (reported >= configured.count) continue;
    if (countOnly && reported > 0 && input.configOverrides) continue;
    addOnce(reasons, gresLabel(configured.name, configured.type) + " count reported lower than configured (" +
                         std::to_string(reported) + " < " + std::to_string(configured.count) + ")");
  }
}

struct Domain {
  std::string name, type;
  int devices = 0;
  std::vector<gres::ChunkLayout> layouts;  // distinct values the records carried (sizes empty = none)
};

bool sameLayout(const gres::ChunkLayout& a, const gres::ChunkLayout& b) {
  return a.sizes == b.sizes && a.order == b.order;
}

std::vector<Domain> chunkDomains(const std::vector<RegisteredGres>& registered) {
  std::vector<Domain> domains;
  for (const auto& r : registered) {
    if (isShared(r.name)) continue;
    auto found = std::find_if(domains.begin(), domains.end(), [&](const Domain& d) {
      return lowerCase(d.name) == lowerCase(r.name) && lowerCase(d.type) == lowerCase(r.type);
    });
    if (found == domains.end()) {
      Domain domain;
      domain.name = r.name;
      domain.type = r.type;
      domains.push_back(std::move(domain));
      found = std::prev(domains.end());
    }
    if (r.files > 0) ++found->devices;
    gres::ChunkLayout layout{.type = r.type, .sizes = r.chunkSizes, .order = r.chunkOrder, .name = r.name};
    bool known = std::any_of(found->layouts.begin(), found->layouts.end(),
                             [&](const gres::ChunkLayout& l) { return sameLayout(l, layout); });
    if (!known) found->layouts.push_back(std::move(layout));
  }
  return domains;
}

bool chunked(const Domain& domain) {
  return std::any_of(domain.layouts.begin(), domain.layouts.end(),
                     [](const gres::ChunkLayout& l) { return !l.sizes.empty() || !l.order.empty(); });
}

void checkChunks(const RegistrationInput& input, std::vector<std::string>& reasons) {
  bool nodeHasShared = false;
  for (const auto& r : input.registered) {
    if (!isShared(r.name)) continue;
    nodeHasShared = true;
    if (!r.chunkSizes.empty() || !r.chunkOrder.empty())
      addOnce(reasons, gresLabel(r.name, r.type) + ": ChunkSizes cannot be used on shared GRES");
  }
  for (const auto& c : input.configured) nodeHasShared = nodeHasShared || isShared(c.name);

  for (const auto& domain : chunkDomains(input.registered)) {
    if (!chunked(domain)) continue;
    std::string label = gresLabel(domain.name, domain.type);
    if (domain.layouts.size() > 1) {
      addOnce(reasons, label + ": records of one Type registered different ChunkSizes/ChunkOrder");
      continue;
    }
    if (lowerCase(domain.name) == "gpu" && nodeHasShared) {
      addOnce(reasons, label + ": ChunkSizes cannot be used on gres/gpu of a node that also has gres/shard or gres/mps");
      continue;
    }
    if (auto status = gres::validateChunkLayout(domain.layouts.front(), domain.devices); !status) {
      addOnce(reasons, status.error());
    }
  }
}

}  // namespace

std::vector<std::string> registrationDrainReasons(const RegistrationInput& input) {
  std::vector<std::string> reasons;
  for (const auto& error : input.agentErrors) addOnce(reasons, error);
  checkCounts(input, reasons);
  checkChunks(input, reasons);
  return reasons;
}

}  // namespace gantry::drain
