#include "controller/core/dependency.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace gantry::core {
namespace {

struct KindName {
  DependencyKind kind;
  std::string_view name;
};
constexpr KindName kKinds[] = {{DependencyKind::After, "after"},           {DependencyKind::AfterAny, "afterany"},
                               {DependencyKind::AfterOk, "afterok"},       {DependencyKind::AfterNotOk, "afternotok"},
                               {DependencyKind::AfterCorr, "aftercorr"},   {DependencyKind::Singleton, "singleton"}};

std::string_view nameOf(DependencyKind kind) {
  for (const auto& known : kKinds) {
    if (known.kind == kind) return known.name;
  }
  return "?";
}

std::optional<DependencyKind> kindNamed(std::string_view name) {
  std::string lowered(name);
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& known : kKinds) {
    if (known.name == lowered) return known.kind;
  }
  return std::nullopt;
}

std::optional<uint64_t> number(std::string_view text) {
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

Error problem(std::string_view text, const std::string& why) {
  return Error{ErrorCode::Invalid, "Job dependency problem: '" + std::string(text) + "': " + why};
}

// "ID" or "ID+MIN" (MIN only after "after:").
Result<DependencyEntry> readTarget(DependencyKind kind, std::string_view text, std::string_view whole) {
  DependencyEntry entry{.kind = kind};
  std::string_view id = text;
  if (size_t plus = text.find('+'); plus != std::string_view::npos) {
    if (kind != DependencyKind::After) return problem(whole, "+minutes only follows an after: job id");
    auto minutes = number(text.substr(plus + 1));
    if (!minutes || *minutes > 525600) return problem(whole, "'" + std::string(text) + "' has no minutes after +");
    entry.delayMinutes = static_cast<int64_t>(*minutes);
    id = text.substr(0, plus);
  }
  if (size_t underscore = id.find('_'); underscore != std::string_view::npos) {
    // Task indexes stop below MaxArraySize's ceiling.
    auto task = number(id.substr(underscore + 1));
    if (!task || *task >= 4000001) return problem(whole, "'" + std::string(id) + "' names no array task");
    entry.arrayTask = static_cast<int64_t>(*task);
    id = id.substr(0, underscore);
  }
  auto value = number(id);
  if (!value || *value == 0) return problem(whole, "'" + std::string(id) + "' is not a job id");
  entry.jobId = *value;
  return entry;
}

Result<Dependency> parse(std::string_view text, bool withStatus) {
  Dependency dependency;
  if (text.empty()) return dependency;
  bool commas = text.find(',') != std::string_view::npos;
  bool questions = text.find('?') != std::string_view::npos;
  if (commas && questions) return problem(text, "',' (all) and '?' (any) cannot be mixed");
  dependency.any = questions;
  for (std::string_view item : split(text, questions ? '?' : ',')) {
    std::optional<DependencyStatus> status;
    if (withStatus) {
      for (auto [suffix, meaning] : {std::pair{std::string_view("(unfulfilled)"), DependencyStatus::Unfulfilled},
                                     std::pair{std::string_view("(failed)"), DependencyStatus::Failed}}) {
        if (item.size() > suffix.size() && item.substr(item.size() - suffix.size()) == suffix) {
          status = meaning;
          item.remove_suffix(suffix.size());
        }
      }
    }
    if (item.empty()) return problem(text, "an entry is empty");
    size_t colon = item.find(':');
    std::vector<DependencyEntry> entries;
    if (colon == std::string_view::npos) {
      auto kind = kindNamed(item);
      if (kind == DependencyKind::Singleton) {
        entries.push_back(DependencyEntry{.kind = DependencyKind::Singleton});
      } else if (!kind && number(item)) {
        // A bare job id is afterany, as Slurm reads it.
        auto entry = readTarget(DependencyKind::AfterAny, item, text);
        if (!entry) return Error{entry.failure()};
        entries.push_back(*entry);
      } else {
        return problem(text, kind ? "'" + std::string(item) + "' names no job" : "unknown type '" + std::string(item) +
                                                                                     "' (after, afterany, afterok, "
                                                                                     "afternotok, aftercorr, singleton)");
      }
    } else {
      auto kind = kindNamed(item.substr(0, colon));
      if (!kind || *kind == DependencyKind::Singleton) {
        return problem(text, "unknown type '" + std::string(item.substr(0, colon)) +
                                 "' (after, afterany, afterok, afternotok, aftercorr, singleton)");
      }
      for (std::string_view target : split(item.substr(colon + 1), ':')) {
        auto entry = readTarget(*kind, target, text);
        if (!entry) return Error{entry.failure()};
        entries.push_back(*entry);
      }
    }
    for (auto& entry : entries) {
      if (status) entry.status = *status;
      dependency.entries.push_back(entry);
    }
  }
  return dependency;
}

enum class EntryState { Unfulfilled, Satisfied, Failed };

EntryState stateOf(const DependencyEntry& entry, const DependencyWorld& world) {
  if (entry.status == DependencyStatus::Failed) return EntryState::Failed;
  if (entry.kind == DependencyKind::Singleton) {
    return world.singletonBusy && world.singletonBusy() ? EntryState::Unfulfilled : EntryState::Satisfied;
  }
  std::optional<DependencyTarget> target;
  if (entry.arrayTask >= 0) {
    if (world.arrayTask) target = world.arrayTask(entry.jobId, static_cast<uint32_t>(entry.arrayTask));
  } else {
    // aftercorr: the task of the same index, when the array named has one.
    if (entry.kind == DependencyKind::AfterCorr && world.selfTask >= 0 && world.arrayTask) {
      target = world.arrayTask(entry.jobId, static_cast<uint32_t>(world.selfTask));
    }
    if (!target && world.job) target = world.job(entry.jobId);
  }
  if (!target) return EntryState::Satisfied;  // forgotten: Slurm lifts the entry
  switch (entry.kind) {
    case DependencyKind::After: {
      if (!target->started && !target->ended) return EntryState::Unfulfilled;
      int64_t from = target->started ? target->startTime : target->endTime;
      return world.now >= from + entry.delayMinutes * 60 ? EntryState::Satisfied : EntryState::Unfulfilled;
    }
    case DependencyKind::AfterAny: return target->ended ? EntryState::Satisfied : EntryState::Unfulfilled;
    case DependencyKind::AfterOk:
    case DependencyKind::AfterCorr:
      if (!target->ended) return EntryState::Unfulfilled;
      return target->completedOk ? EntryState::Satisfied : EntryState::Failed;
    case DependencyKind::AfterNotOk:
      if (!target->ended) return EntryState::Unfulfilled;
      return target->completedOk ? EntryState::Failed : EntryState::Satisfied;
    case DependencyKind::Singleton: break;
  }
  return EntryState::Unfulfilled;
}

}  // namespace

Result<Dependency> parseDependency(std::string_view text) { return parse(text, false); }

Result<Dependency> parseStoredDependency(std::string_view text) { return parse(text, true); }

std::string formatDependency(const Dependency& dependency) {
  std::string out;
  for (const auto& entry : dependency.entries) {
    if (!out.empty()) out += dependency.any ? '?' : ',';
    out += nameOf(entry.kind);
    if (entry.kind != DependencyKind::Singleton) {
      out += ':' + std::to_string(entry.jobId);
      if (entry.arrayTask >= 0) out += '_' + std::to_string(entry.arrayTask);
      if (entry.delayMinutes > 0) out += '+' + std::to_string(entry.delayMinutes);
    }
    out += entry.status == DependencyStatus::Failed ? "(failed)" : "(unfulfilled)";
  }
  return out;
}

DependencyCheck checkDependency(const Dependency& dependency, const DependencyWorld& world) {
  DependencyCheck check;
  check.remaining.any = dependency.any;
  // Met for good, met for this pass only (below), waiting, failed.
  bool anyMetForGood = false, anyMetNow = false, anyWaiting = false, anyFailed = false;
  bool allFailed = !dependency.entries.empty();
  for (const auto& entry : dependency.entries) {
    EntryState state = stateOf(entry, world);
    // Met for this pass only: a singleton, and aftercorr for the next of
    // the array's pending tasks (the tasks after it are judged again).
    bool metForThisPass = entry.kind == DependencyKind::Singleton ||
                          (entry.kind == DependencyKind::AfterCorr && world.selfHoldsArrayTasks);
    anyMetForGood |= state == EntryState::Satisfied && !metForThisPass;
    anyMetNow |= state == EntryState::Satisfied;
    anyWaiting |= state == EntryState::Unfulfilled;
    anyFailed |= state == EntryState::Failed;
    allFailed &= state == EntryState::Failed;
    if (state == EntryState::Satisfied && !metForThisPass) continue;
    DependencyEntry kept = entry;
    if (state == EntryState::Failed) kept.status = DependencyStatus::Failed;
    check.remaining.entries.push_back(kept);
  }
  if (dependency.entries.empty()) {
    check.verdict = DependencyVerdict::Satisfied;
  } else if (dependency.any) {
    if (anyMetForGood) {
      check.remaining.entries.clear();  // nothing is left to wait for
      check.verdict = DependencyVerdict::Satisfied;
    } else if (anyMetNow) {
      // Only a singleton is met: the others are kept for the next pass.
      check.verdict = DependencyVerdict::Satisfied;
    } else {
      check.verdict = allFailed ? DependencyVerdict::Never : DependencyVerdict::Wait;
    }
  } else if (anyFailed) {
    check.verdict = DependencyVerdict::Never;
  } else {
    check.verdict = anyWaiting ? DependencyVerdict::Wait : DependencyVerdict::Satisfied;
  }
  return check;
}

std::vector<uint64_t> dependencyJobIds(const Dependency& dependency) {
  std::vector<uint64_t> ids;
  for (const auto& entry : dependency.entries) {
    if (entry.kind != DependencyKind::Singleton) ids.push_back(entry.jobId);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

bool closesCircle(const Dependency& dependency, uint64_t self,
                  const std::function<const Dependency*(uint64_t)>& dependencyOf) {
  std::vector<uint64_t> toVisit = dependencyJobIds(dependency);
  std::set<uint64_t> seen;
  while (!toVisit.empty()) {
    uint64_t id = toVisit.back();
    toVisit.pop_back();
    if (id == self) return true;
    if (!seen.insert(id).second) continue;
    if (const Dependency* next = dependencyOf(id)) {
      for (uint64_t named : dependencyJobIds(*next)) toVisit.push_back(named);
    }
  }
  return false;
}

}  // namespace gantry::core
