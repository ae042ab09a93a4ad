// ControllerCore's priorities: the order of pending jobs (priority.h) and
// the usage fair share is computed from (fair_share.h), charged to each
// job's owner as it runs.
#include "controller/core/controller_core.h"

#include <algorithm>
#include <spdlog/spdlog.h>

#include "common/config/billing_weights.h"
#include "controller/core/accounting_view.h"

namespace gantry::core {

void ControllerCore::startUsageLedger(const std::string& stored) {
  auto reset = parseUsageReset(conf_.priorityUsageResetPeriod);
  UsageReset period = reset ? *reset : UsageReset::None;
  const int64_t t = now();
  usage_ = UsageLedger(conf_.priorityDecayHalfLifeSeconds, period, t);
  // PriorityUsageResetPeriod=NOW starts from nothing, as in Slurm.
  if (!stored.empty() && period != UsageReset::Now) {
    if (auto loaded = UsageLedger::fromText(stored, conf_.priorityDecayHalfLifeSeconds, period)) {
      usage_ = std::move(*loaded);
      usage_.advanceTo(t);
    } else {
      spdlog::warn("fair share: the stored usage does not read ({}); starting from none", loaded.error());
    }
  }
  // Run time before this start is in the stored usage (or lost with the
  // last period's charges); only what runs from now on is charged.
  for (const auto& [id, job] : state_.jobs) {
    if (job.startTime > 0) chargedRunSeconds_[id] = job.runSeconds(t);
  }
}

void ControllerCore::armPriorityCalc() {
  if (priorityWeightsOf(conf_).multifactor == false) return;
  auto period = std::chrono::seconds(std::max<int64_t>(conf_.priorityCalcPeriodSeconds, 1));
  priorityTimer_ = timers_->after(period, [this] {
    onStrand([this] {
      if (stopped_) return;
      chargeUsage();
      armPriorityCalc();
    });
  });
}

// Each job's run time since the last charge, in its partition's billing
// units, goes to its owner; the ledger is decayed to now and stored (a
// restarted controller loses at most one period's charges).
void ControllerCore::chargeUsage() {
  const int64_t t = now();
  usage_.advanceTo(t);
  for (const auto& [id, job] : state_.jobs) {
    if (job.startTime == 0 || job.nodeNames.empty()) continue;
    int64_t ran = job.runSeconds(t);
    int64_t& charged = chargedRunSeconds_[id];
    if (ran < charged) charged = 0;  // requeued: a new run counts from its start
    if (ran == charged) continue;
    const config::PartitionConf* partition = conf_.findPartition(job.spec.partition());
    auto weights = config::parseBillingWeights(partition != nullptr ? partition->tresBillingWeights : "");
    double units = config::billingUnits(weights ? *weights : config::BillingWeights{},
                                        heldTresCounts(heldTresOf(job.allocation, state_.cluster)));
    usage_.charge(job.user, units * static_cast<double>(ran - charged));
    charged = ran;
  }
  // Jobs forgotten since: nothing more to charge.
  std::erase_if(chargedRunSeconds_, [this](const auto& entry) { return state_.findJob(entry.first) == nullptr; });
  options_.store->saveUsageLedger(usage_.toText());
}

std::map<std::string, UsageLedger::Share> ControllerCore::currentShares() const {
  std::set<std::string> users;
  for (const auto& [user, used] : usage_.usage()) users.insert(user);
  for (const auto& [id, job] : state_.jobs) {
    if (!isEnded(job.state)) users.insert(job.user);
  }
  return usage_.shares(users);
}

ControllerCore::PriorityContext ControllerCore::priorityContext() const {
  PriorityContext context;
  context.now = now();
  context.weights = priorityWeightsOf(conf_);
  if (!context.weights.multifactor) return context;
  context.shares = currentShares();
  context.clusterCpus = 0;
  for (const auto& node : state_.nodes) context.clusterCpus += node.conf.cpus;
  context.clusterCpus = std::max<int64_t>(context.clusterCpus, 1);
  context.clusterNodes = std::max<int64_t>(static_cast<int64_t>(state_.nodes.size()), 1);
  for (const auto& partition : conf_.partitions) {
    context.largestPartitionFactor = std::max(context.largestPartitionFactor, partition.priorityJobFactor);
  }
  return context;
}

uint32_t ControllerCore::effectivePriority(const JobRecord& job, const PriorityContext& context,
                                           PriorityParts* parts) const {
  // A priority set by an administrator is kept as it is, as in Slurm.
  if (job.spec.priority() != 0) return static_cast<uint32_t>(job.spec.priority());
  if (!context.weights.multifactor) return 0;
  PriorityInputs inputs;
  inputs.waitedSeconds =
      job.eligibleTime > 0 && job.state == JobState::Pending ? context.now - job.eligibleTime : 0;
  inputs.nodes = std::max(job.spec.min_nodes(), 1);
  inputs.cpus = std::max<int64_t>(std::max(job.spec.ntasks(), 1), int64_t{job.spec.ntasks_per_node()} * inputs.nodes) *
                std::max(job.spec.cpus_per_task(), 1);
  inputs.clusterCpus = context.clusterCpus;
  inputs.clusterNodes = context.clusterNodes;
  if (const config::PartitionConf* partition = conf_.findPartition(job.spec.partition());
      partition != nullptr && context.largestPartitionFactor > 0) {
    inputs.partition = static_cast<double>(partition->priorityJobFactor) / context.largestPartitionFactor;
  }
  if (auto share = context.shares.find(job.user); share != context.shares.end()) {
    inputs.fairshare = share->second.factor;
  }
  inputs.nice = job.spec.nice();
  PriorityParts computed = priorityParts(inputs, context.weights);
  if (parts != nullptr) *parts = computed;
  return priorityOf(computed, context.weights);
}

void ControllerCore::listShares(v1::ListSharesRequest request, auth::Identity caller,
                                Reply<v1::ListSharesResponse> reply) {
  onStrand([this, request = std::move(request), caller = std::move(caller), reply = std::move(reply)] {
    usage_.advanceTo(now());
    std::set<std::string> wanted(request.users().begin(), request.users().end());
    // PrivateData=usage: a plain user sees their own line only, as in
    // Slurm; without it usage is for everyone to see.
    const bool onlyOwn = conf_.privateData.usage && !isAdministrator(caller);
    v1::ListSharesResponse response;
    for (const auto& [user, share] : currentShares()) {
      if (!wanted.empty() && wanted.count(user) == 0) continue;
      if (onlyOwn && user != caller.user) continue;
      v1::ShareRow* row = response.add_rows();
      row->set_user(user);
      row->set_raw_shares(1);
      row->set_norm_shares(share.normShares);
      row->set_raw_usage(usage_.rawUsage(user));
      row->set_effective_usage(share.effectiveUsage);
      row->set_fairshare(share.factor);
    }
    reply(std::move(response));
  });
}

}  // namespace gantry::core
