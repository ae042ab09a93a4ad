// What accounting records of a job: the job itself and each of its steps
// (batch, extern, numbered), built from the core's records in sacct's
// terms. Pure: no I/O, no clock; the journal (accounting_journal.h)
// decides when a record is written.
#pragma once

#include <cstdint>
#include <map>
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

// What an allocation holds, counted without building any text: the
// strand counts it from the selection cluster (which only it may read) and
// the record, text included, is built on the state store's writer thread.
struct HeldTres {
  struct Gres {
    std::string name;
    std::string type;  // empty: untyped (shares, untyped counts)
    uint64_t count = 0;
  };
  uint32_t nodes = 0;
  uint32_t cpus = 0;
  uint64_t memoryMb = 0;
  std::vector<Gres> gres;  // devices, shares and count GRES, in grant order
  bool operator==(const HeldTres&) const = default;
};
HeldTres heldTresOf(const select::Allocation& allocation, const select::Cluster& cluster);
// The counts of what is held, for tresText and tresTextInIdOrder (empty
// when nothing is held).
std::map<std::string, uint64_t> heldTresCounts(const HeldTres& held);
// AllocTRES of what is held: "billing=4,cpu=4,gres/gpu=2,gres/gpu:a40=2,mem=8G,node=1".
inline std::string heldTresText(const HeldTres& held);

// What a job's records need of the cluster: the job's allocation, the
// batch host's part of it and each step's.
struct JobHeldTres {
  HeldTres job;
  HeldTres batchHost;
  std::map<uint32_t, HeldTres> steps;
};
JobHeldTres jobHeldTresOf(const JobRecord& job, const select::Cluster& cluster);

// The record of the job's present run (the submit time of a requeued job's
// run is its requeue time) and of every step it has had in that run, job
// record first. `held` gives what the allocations hold (jobHeldTresOf).
std::vector<accounting::JobRecord> accountingRecordsOf(const JobRecord& job, const JobHeldTres& held,
                                                       const AccountingScope& scope);
inline std::vector<accounting::JobRecord> accountingRecordsOf(const JobRecord& job, const select::Cluster& cluster,
                                                              const AccountingScope& scope) {
  return accountingRecordsOf(job, jobHeldTresOf(job, cluster), scope);
}

// The record that closes a run the job has left (it was requeued): the
// record as last written, ended at `now` as REQUEUED. Steps are closed by
// their own records.
accounting::JobRecord requeuedRun(accounting::JobRecord lastWritten, int64_t now);

// "cpu=4,gres/gpu=2,gres/gpu:a40=2,mem=8G,node=1": names in order, memory
// (given in MiB) in the largest whole unit.
std::string tresText(const std::map<std::string, uint64_t>& counts);
// The same in the order of Slurm's TRES ids, as scontrol show job writes
// it: cpu, mem, energy, node, billing, fs/disk, vmem, pages, then the rest
// by name ("cpu=4,mem=8G,node=1,billing=4,gres/gpu=2").
std::string tresTextInIdOrder(const std::map<std::string, uint64_t>& counts);

inline std::string heldTresText(const HeldTres& held) { return tresText(heldTresCounts(held)); }

// What a node offers, for CfgTRES and a partition's TRES: cpu, mem,
// billing (one per CPU: TRESBillingWeights are not applied) and each
// configured GRES, typed ones also under their type.
std::map<std::string, uint64_t> configuredTresCounts(const config::NodeConf& node);

// What the request asked (ReqTRES), as counts for tresText.
std::map<std::string, uint64_t> requestedTres(const v1::JobSpec& spec);

}  // namespace gantry::core
