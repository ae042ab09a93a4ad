// Fair share from usage the controller records itself (pure, injected
// time), so it works without accounting.
//
// Each user's usage is billing units times seconds run (TRESBillingWeights
// of the job's partition; CPUs when it has none), decayed with
// PriorityDecayHalfLife and zeroed at each PriorityUsageResetPeriod
// boundary. Gantry has no account tree: every user holds one share under
// the root. The factor is Slurm's Fair Tree on that flat tree: users
// ranked by their level fair share (their part of the shares over their
// part of the usage), the highest 1.0, the lowest 1/N, ties alike.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "common/util/result.h"

namespace gantry::core {

enum class UsageReset { None, Now, Daily, Weekly, Monthly, Quarterly, Yearly };
Result<UsageReset> parseUsageReset(std::string_view text);

class UsageLedger {
 public:
  UsageLedger() = default;
  UsageLedger(int64_t halfLifeSeconds, UsageReset reset, int64_t now);

  void charge(const std::string& user, double billingSeconds);
  // Decays the usage to `now` and zeroes it when a reset boundary passed
  // since the last call. Time never runs backwards here.
  void advanceTo(int64_t now);

  double rawUsage(const std::string& user) const;
  double totalUsage() const { return total_; }
  const std::map<std::string, double>& usage() const { return usage_; }

  struct Share {
    double normShares = 0;
    double effectiveUsage = 0;
    double factor = 0;
  };
  // Every user of `users` (and none else), ranked among them.
  std::map<std::string, Share> shares(const std::set<std::string>& users) const;

  // The stored form: "<at> <user> <usage>" lines after a "ledger <at>" line.
  std::string toText() const;
  static Result<UsageLedger> fromText(std::string_view text, int64_t halfLifeSeconds, UsageReset reset);

 private:
  int64_t halfLife_ = 0;
  UsageReset reset_ = UsageReset::None;
  int64_t at_ = 0;  // what the usage is decayed to
  std::map<std::string, double> usage_;
  double total_ = 0;
};

}  // namespace gantry::core
