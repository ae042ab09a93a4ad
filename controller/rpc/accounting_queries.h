// The accounting RPCs (ListAccountingJobs for sacct, ListNodeEvents for
// `sacctmgr show event`) apart from gRPC: the wire request becomes a store
// query, the store answers on the caller's thread (its read connection,
// never the core's strand), and the records go back as wire messages.
//
// Who sees what, as slurmdbd decides it: every user sees every user's jobs
// unless PrivateData=jobs, under which a plain user sees only their own;
// root and SlurmUser always see all. Node events are visible to everyone
// (slurmdbd applies no PrivateData to them).
//
// Thread-safe: the store is; AccountingAccess is read-only once built.
#pragma once

#include <cstddef>
#include <string>

#include "common/auth/identity.h"
#include "common/util/result.h"
#include "controller/accounting/accounting_store.h"
#include "controller/accounting/queries.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::ctlrpc {

// What gantryctld gives the accounting RPCs, fixed at start.
struct AccountingAccess {
  accounting::AccountingStore* store = nullptr;  // null: accounting is off
  std::string cluster;                           // ClusterName: the default cluster filter
  bool privateJobs = false;                      // PrivateData=jobs
};

// The most values one filter of a request may carry (ids, uids, accounts,
// states, clusters, nodes).
constexpr size_t kMaxAccountingFilterValues = 1000;

// Invalid, naming the field: a step id that is not a number, batch, extern
// or interactive; a job id 0; a window whose start is after its end; a
// filter with more than kMaxAccountingFilterValues values; a node list that
// is not a hostlist expression.
Result<accounting::JobQuery> jobQueryFrom(const v1::ListAccountingJobsRequest& request,
                                          const std::string& localCluster);
Result<accounting::EventQuery> eventQueryFrom(const v1::ListNodeEventsRequest& request,
                                              const std::string& localCluster);

// The whole answer. NotNow (FAILED_PRECONDITION) when accounting is off;
// Invalid for a bad request; Internal when the store cannot be read.
// `administrator` is ControllerCore::isAdministrator(caller).
Result<v1::ListAccountingJobsResponse> listAccountingJobs(const AccountingAccess& access,
                                                          const v1::ListAccountingJobsRequest& request,
                                                          const auth::Identity& caller, bool administrator);
Result<v1::ListNodeEventsResponse> listNodeEvents(const AccountingAccess& access,
                                                  const v1::ListNodeEventsRequest& request);

v1::AccountingJob toWire(const accounting::JobRecord& record);
v1::AccountingNodeEvent toWire(const accounting::NodeEvent& event);

}  // namespace gantry::ctlrpc
