// --dependency: what a pending job waits for, and whether it has come.
// Pure: the caller says what it knows of the jobs named.
//
// Text (sbatch/srun/salloc -d, scontrol update Dependency=):
//
//   entry[,entry...]   every entry must be satisfied
//   entry[?entry...]   any one entry will do (one separator per list)
//
//   after:ID[+MIN][:ID[+MIN]...]   ID started (or ended before it started),
//                                  MIN minutes ago (0 by default)
//   afterany:ID[:ID...]            ID ended, however it ended
//   afterok:ID[:ID...]             ID completed with exit code 0
//   afternotok:ID[:ID...]          ID ended otherwise: failed, timed out,
//                                  cancelled or lost with its node
//   aftercorr:ID[:ID...]           each task of this array after the task
//                                  of array ID with the same index completed
//                                  with exit code 0 (ID as a whole when
//                                  it has no such task, or this job is no
//                                  array task)
//
// An ID may name one task of an array, ID_TASK (afterok:12_4): the entry
// then waits for that task alone; a bare array ID stands for all of its
// tasks.
//   singleton                      no other job of the same user and name
//                                  holds resources
//
// Rules, as Slurm decides them:
//   - an entry satisfied is dropped from what is left; what is left is
//     shown with "(unfulfilled)" or "(failed)" after each entry;
//   - singleton is the exception: it is met only for the pass that judges
//     it (a namesake may start before this job finds room), so it stays
//     in what is left, and is judged again, until the job starts;
//   - an entry that can never be satisfied (afterok on a job that failed)
//     stays failed, even once that job is forgotten;
//   - a job the controller no longer knows (purged after MinJobAge)
//     satisfies an entry still waiting for it;
//   - aftercorr judged for a record that holds an array's pending tasks is
//     met for the task about to start only: like singleton it stays, to be
//     judged again for the next task;
//   - ',' : satisfied once nothing is left, never once any entry failed;
//     '?' : satisfied once any entry is, never once every entry failed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"

namespace gantry::core {

enum class DependencyKind { After, AfterAny, AfterOk, AfterNotOk, AfterCorr, Singleton };
enum class DependencyStatus { Unfulfilled, Failed };

struct DependencyEntry {
  DependencyKind kind = DependencyKind::AfterAny;
  uint64_t jobId = 0;        // none for singleton
  int64_t arrayTask = -1;    // ID_TASK: that task of array jobId; -1: the whole job
  int64_t delayMinutes = 0;  // after:ID+MIN
  DependencyStatus status = DependencyStatus::Unfulfilled;
  bool operator==(const DependencyEntry&) const = default;
};

struct Dependency {
  std::vector<DependencyEntry> entries;
  bool any = false;  // '?' between entries
  bool empty() const { return entries.empty(); }
  bool operator==(const Dependency&) const = default;
};

// A user's text. "" is no dependency. The error names the part that is wrong.
Result<Dependency> parseDependency(std::string_view text);
// The stored form, formatDependency's text: each entry may end in
// "(unfulfilled)" or "(failed)".
Result<Dependency> parseStoredDependency(std::string_view text);
// "afterok:12(unfulfilled),singleton(unfulfilled)"; "" when empty.
std::string formatDependency(const Dependency& dependency);

// What an entry needs to know of the job it names.
struct DependencyTarget {
  bool started = false;      // it was allocated (it may have ended since)
  bool ended = false;        // ended for good (COMPLETED, FAILED, CANCELLED, ...)
  bool completedOk = false;  // ended COMPLETED with exit code 0
  int64_t startTime = 0;     // with started
  int64_t endTime = 0;       // with ended
};

struct DependencyWorld {
  // The job named; nullopt when the controller no longer knows it.
  std::function<std::optional<DependencyTarget>(uint64_t)> job;
  // Task `task` of array `arrayJobId`; nullopt when the array has no such
  // task (or is forgotten).
  std::function<std::optional<DependencyTarget>(uint64_t arrayJobId, uint32_t task)> arrayTask;
  // The waiting job's own array task (the next to start, for a record that
  // holds pending tasks); -1 when it is no array task. For aftercorr.
  int64_t selfTask = -1;
  bool selfHoldsArrayTasks = false;
  // Another job of the same user and name holds resources.
  std::function<bool()> singletonBusy;
  int64_t now = 0;
};

enum class DependencyVerdict { Wait, Satisfied, Never };

struct DependencyCheck {
  DependencyVerdict verdict = DependencyVerdict::Wait;
  Dependency remaining;  // what is still to be judged: a met singleton stays
};

DependencyCheck checkDependency(const Dependency& dependency, const DependencyWorld& world);

// The job ids the entries name (to check at submission that each exists);
// for ID_TASK, the array's ID.
std::vector<uint64_t> dependencyJobIds(const Dependency& dependency);

// Whether job `self` waiting on `dependency` would close a circle: a job it
// names is `self`, or waits (directly or through others) for `self`.
// `dependencyOf` gives what a job still waits for; nullptr for none or an
// unknown job.
bool closesCircle(const Dependency& dependency, uint64_t self,
                  const std::function<const Dependency*(uint64_t)>& dependencyOf);

}  // namespace gantry::core
