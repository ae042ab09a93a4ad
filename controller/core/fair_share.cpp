#include "controller/core/fair_share.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <sstream>
#include <vector>

namespace gantry::core {
namespace {

// The latest reset boundary at or before `t`, in local time (as Slurm
// counts days and months); 0 for no periodic reset.
int64_t lastBoundary(UsageReset reset, int64_t t) {
  if (reset == UsageReset::None || reset == UsageReset::Now) return 0;
  std::time_t when = static_cast<std::time_t>(t);
  std::tm local{};
  localtime_r(&when, &local);
  local.tm_sec = 0;
  local.tm_min = 0;
  local.tm_hour = 0;
  switch (reset) {
    case UsageReset::Weekly: local.tm_mday -= local.tm_wday; break;  // Sunday
    case UsageReset::Monthly: local.tm_mday = 1; break;
    case UsageReset::Quarterly:
      local.tm_mday = 1;
      local.tm_mon -= local.tm_mon % 3;
      break;
    case UsageReset::Yearly:
      local.tm_mday = 1;
      local.tm_mon = 0;
      break;
    default: break;  // Daily: midnight
  }
  local.tm_isdst = -1;
  return static_cast<int64_t>(std::mktime(&local));
}

}  // namespace

Result<UsageReset> parseUsageReset(std::string_view text) {
  static const std::pair<std::string_view, UsageReset> kNames[] = {
      {"NONE", UsageReset::None},       {"NOW", UsageReset::Now},           {"DAILY", UsageReset::Daily},
      {"WEEKLY", UsageReset::Weekly},   {"MONTHLY", UsageReset::Monthly},   {"QUARTERLY", UsageReset::Quarterly},
      {"YEARLY", UsageReset::Yearly}};
  for (const auto& [name, reset] : kNames) {
    if (name == text) return reset;
  }
  return Error{"PriorityUsageResetPeriod: \"" + std::string(text) + "\" is not a period"};
}

UsageLedger::UsageLedger(int64_t halfLifeSeconds, UsageReset reset, int64_t now)
    : halfLife_(halfLifeSeconds), reset_(reset), at_(now) {}

void UsageLedger::charge(const std::string& user, double billingSeconds) {
  if (billingSeconds <= 0) return;
  usage_[user] += billingSeconds;
  total_ += billingSeconds;
}

void UsageLedger::advanceTo(int64_t now) {
  if (now <= at_) return;
  int64_t boundary = lastBoundary(reset_, now);
  if (boundary > at_) {
    usage_.clear();
    total_ = 0;
  } else if (halfLife_ > 0) {
    double factor = std::exp2(-static_cast<double>(now - at_) / static_cast<double>(halfLife_));
    total_ = 0;
    for (auto& [user, used] : usage_) {
      used *= factor;
      total_ += used;
    }
  }
  at_ = now;
}

double UsageLedger::rawUsage(const std::string& user) const {
  auto found = usage_.find(user);
  return found == usage_.end() ? 0.0 : found->second;
}

std::map<std::string, UsageLedger::Share> UsageLedger::shares(const std::set<std::string>& users) const {
  std::map<std::string, Share> out;
  if (users.empty()) return out;
  const double norm = 1.0 / static_cast<double>(users.size());
  double total = 0;
  for (const auto& user : users) total += rawUsage(user);
  // Level fair share: shares over usage; no usage ranks first.
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& user : users) {
    Share share;
    share.normShares = norm;
    share.effectiveUsage = total > 0 ? rawUsage(user) / total : 0.0;
    out[user] = share;
    double level = share.effectiveUsage > 0 ? norm / share.effectiveUsage : std::numeric_limits<double>::infinity();
    ranked.emplace_back(level, user);
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  // Fair Tree: rank from the top (N) down; equal levels share a rank.
  const double count = static_cast<double>(ranked.size());
  size_t rank = ranked.size();
  for (size_t i = 0; i < ranked.size(); ++i) {
    if (i > 0 && ranked[i].first != ranked[i - 1].first) rank = ranked.size() - i;
    out[ranked[i].second].factor = static_cast<double>(rank) / count;
  }
  return out;
}

std::string UsageLedger::toText() const {
  std::ostringstream out;
  out.precision(17);
  out << "ledger " << at_ << "\n";
  for (const auto& [user, used] : usage_) out << user << " " << used << "\n";
  return out.str();
}

Result<UsageLedger> UsageLedger::fromText(std::string_view text, int64_t halfLifeSeconds, UsageReset reset) {
  std::istringstream in{std::string(text)};
  std::string word;
  int64_t at = 0;
  if (!(in >> word >> at) || word != "ledger") return Error{ErrorCode::Internal, "usage ledger: no header line"};
  UsageLedger ledger(halfLifeSeconds, reset, at);
  std::string user;
  double used = 0;
  while (in >> user >> used) {
    if (!std::isfinite(used) || used < 0) return Error{ErrorCode::Internal, "usage ledger: bad usage of " + user};
    ledger.charge(user, used);
  }
  if (!in.eof()) return Error{ErrorCode::Internal, "usage ledger: a line does not read"};
  return ledger;
}

}  // namespace gantry::core
