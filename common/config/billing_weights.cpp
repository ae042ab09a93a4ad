#include "common/config/billing_weights.h"

#include <cctype>
#include <charconv>
#include <cmath>

namespace gantry::config {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

Result<BillingWeights> parseBillingWeights(std::string_view text) {
  BillingWeights weights;
  size_t at = 0;
  while (at < text.size()) {
    size_t comma = text.find(',', at);
    std::string_view item = text.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
    at = comma == std::string_view::npos ? text.size() : comma + 1;
    if (item.empty()) continue;
    auto bad = [&item](const std::string& why) {
      return Error{"TRESBillingWeights: \"" + std::string(item) + "\" " + why};
    };
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) return bad("is not NAME=WEIGHT");
    std::string name = lower(item.substr(0, eq));
    std::string_view value = item.substr(eq + 1);
    double scale = 1.0;  // memory: weights are per MB
    if (!value.empty() && std::isalpha(static_cast<unsigned char>(value.back()))) {
      char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(value.back())));
      if (name != "mem") return bad("has a unit, which only Mem takes");
      if (unit == 'K') scale = 1.0 / 1024;
      else if (unit == 'M') scale = 1.0;
      else if (unit == 'G') scale = 1024.0;
      else if (unit == 'T') scale = 1024.0 * 1024.0;
      else return bad("has an unknown unit (K, M, G or T)");
      value.remove_suffix(1);
    }
    double weight = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), weight);
    if (value.empty() || ec != std::errc{} || end != value.data() + value.size() || !std::isfinite(weight) ||
        weight < 0) {
      return bad("has a weight that is not a number of 0 or more");
    }
    if (name != "cpu" && name != "mem" && name != "node" && name.rfind("gres/", 0) != 0 &&
        name.rfind("license/", 0) != 0) {
      return bad("names no TRES (CPU, Mem, Node, GRES/<name>, License/<name>)");
    }
    // A memory weight per GB is per MB divided by 1024.
    weights.perUnit[name] = name == "mem" ? weight / scale : weight;
  }
  return weights;
}

double billingUnits(const BillingWeights& weights, const std::map<std::string, uint64_t>& held) {
  if (weights.empty()) {
    auto cpus = held.find("cpu");
    return cpus == held.end() ? 0.0 : static_cast<double>(cpus->second);
  }
  double units = 0;
  for (const auto& [name, weight] : weights.perUnit) {
    auto count = held.find(name);
    if (count != held.end()) units += weight * static_cast<double>(count->second);
  }
  return units;
}

}  // namespace gantry::config
