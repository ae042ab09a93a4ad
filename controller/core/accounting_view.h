// What accounting records of a job: the job itself and each of its steps
// (batch, extern, numbered), built from the core's records in sacct's
// terms. Pure: no I/O, no clock; the journal (accounting_journal.h)
// decides when a record is written.
#pragma once

#include <string>
#include <vector>

#include "common/accounting/tracked_tres.h"
#include "controller/accounting/records.h"
#include "controller/core/records.h"
#include "controller/select/cluster.h"

namespace gantry::core {

struct AccountingScope {
  std::string cluster;           // ClusterName
  bool externSteps = false;      // PrologFlags=Contain
  accounting::TrackedTres tracked;
};

// The record of the job's present run (the submit time of a requeued job's
// run is its requeue time) and of every step it has had in that run, job
// record first. `cluster` gives the names and types of the devices the
// allocation holds.
std::vector<accounting::JobRecord> accountingRecordsOf(const JobRecord& job, const select::Cluster& cluster,
                                                       const AccountingScope& scope);

// The record that closes a run the job has left (it was requeued): the
// record as last written, ended at `now` as REQUEUED. Steps are closed by
// their own records.
accounting::JobRecord requeuedRun(accounting::JobRecord lastWritten, int64_t now);

// "cpu=4,gres/gpu=2,gres/gpu:a40=2,mem=8G,node=1": names in order, memory
// (given in MiB) in the largest whole unit.
std::string tresText(const std::map<std::string, uint64_t>& counts);

// TRES an allocation holds (AllocTRES) and what the request asked
// (ReqTRES), as counts for tresText.
std::map<std::string, uint64_t> allocatedTres(const select::Allocation& allocation, const select::Cluster& cluster);
std::map<std::string, uint64_t> requestedTres(const v1::JobSpec& spec);

}  // namespace gantry::core
