// The core's side of accounting (accounting_journal.h): the journal is set
// up at start from what the state store still held, and every change of a
// node's state is turned into the node events it opens and closes. Job and
// step records are journaled by the executor with each job persist.
#include <spdlog/spdlog.h>

#include "controller/core/controller_core.h"
#include "controller/core/core_helpers.h"

namespace gantry::core {

std::unique_ptr<AccountingJournal> ControllerCore::makeAccountingJournal() {
  if (options_.accounting == nullptr) return nullptr;
  AccountingScope scope;
  scope.cluster = conf_.clusterName;
  scope.externSteps = detail::wantsExternStep(conf_);
  if (auto tracked = accounting::trackedTresFrom(conf_.accountingStorageTres)) scope.tracked = std::move(*tracked);
  return std::make_unique<AccountingJournal>(
      *options_.store, *options_.accounting, *timers_,
      [this](std::function<void()> work) { onStrand(std::move(work)); }, std::move(scope));
}

void ControllerCore::startAccounting() {
  if (!accountingJournal_) return;
  // A job recovery persisted already has its records journaled.
  accountingJournal_->rememberUnlessWritten(state_.jobs, state_.cluster);
  // The events still open in the accounting store are this cluster's
  // history: the nodes' states are compared with them as they come back.
  accounting::EventQuery open;
  open.clusters = {conf_.clusterName};
  open.openOnly = true;
  auto events = options_.accounting->events(open);
  if (!events) {
    spdlog::error("accounting: the open node events cannot be read ({}); events open from now on", events.error());
  } else {
    nodeEvents_.adopt(*events);
  }
  nodeEventsAdopted_ = true;
  for (const auto& node : state_.nodes) recordNodeEvents(node);
}

void ControllerCore::recordNodeEvents(const NodeRecord& node) {
  // Before the store's open events are known, nothing is opened twice.
  if (!accountingJournal_ || !nodeEventsAdopted_) return;
  auto wanted = wantedNodeEvents(node, accountingJournal_->scope().tracked, conf_.clusterName);
  if (!wanted) return;
  accountingJournal_->journalEvents(nodeEvents_.update(node.conf.name, *wanted, now()));
}

void ControllerCore::flushAccounting() {
  if (accountingJournal_) accountingJournal_->flush();
}

}  // namespace gantry::core
