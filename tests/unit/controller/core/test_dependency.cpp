// --dependency: reading the text, and when an entry is satisfied; one row per rule.
#include <catch2/catch.hpp>

#include <map>

#include "controller/core/dependency.h"

using namespace gantry::core;

TEST_CASE("dependency text", "[core][dependency]") {
  struct Case {
    const char* rule;
    const char* text;
    const char* stored;   // formatDependency of what was read; nullptr: refused
    const char* refusal;  // a part of the error
  };
  const Case cases[] = {
      {"no text is no dependency", "", "", nullptr},
      {"one afterok", "afterok:41", "afterok:41(unfulfilled)", nullptr},
      {"several ids after one type", "afternotok:7:9", "afternotok:7(unfulfilled),afternotok:9(unfulfilled)", nullptr},
      {"commas join entries that must all be met", "afterany:3,singleton",
       "afterany:3(unfulfilled),singleton(unfulfilled)", nullptr},
      {"question marks join alternatives", "afterok:3?afternotok:3", "afterok:3(unfulfilled)?afternotok:3(unfulfilled)",
       nullptr},
      {"after takes minutes", "after:12+30", "after:12+30(unfulfilled)", nullptr},
      {"a bare id is afterany", "88", "afterany:88(unfulfilled)", nullptr},
      {"types in any case", "AfterOK:5", "afterok:5(unfulfilled)", nullptr},
      {"aftercorr is read", "aftercorr:6", "aftercorr:6(unfulfilled)", nullptr},
      {"mixing , and ? is refused", "afterok:1,afterok:2?afterok:3", nullptr, "cannot be mixed"},
      {"an unknown type is refused", "before:4", nullptr, "unknown type 'before'"},
      {"a type without ids is refused", "afterok", nullptr, "names no job"},
      {"an empty id is refused", "afterok:", nullptr, "is not a job id"},
      {"job 0 is refused", "afterok:0", nullptr, "is not a job id"},
      {"minutes only after 'after'", "afterok:4+5", nullptr, "+minutes only follows an after"},
      {"minutes must be a number", "after:4+soon", nullptr, "has no minutes"},
      {"an array task is named ID_TASK", "afterok:4_2", "afterok:4_2(unfulfilled)", nullptr},
      {"after takes minutes after a task too", "after:4_0+5", "after:4_0+5(unfulfilled)", nullptr},
      {"a task index is a number", "afterok:4_x", nullptr, "names no array task"},
      {"a task index stays below MaxArraySize's ceiling", "afterok:4_4000001", nullptr, "names no array task"},
      {"an empty entry is refused", "afterok:4,,afterok:5", nullptr, "empty"},
      {"a status is not the user's to write", "afterok:4(failed)", nullptr, "is not a job id"},
  };
  for (const Case& c : cases) {
    INFO(c.rule);
    auto parsed = parseDependency(c.text);
    if (c.stored == nullptr) {
      REQUIRE_FALSE(parsed);
      CHECK_THAT(parsed.error(), Catch::Contains(c.refusal));
      CHECK_THAT(parsed.error(), Catch::StartsWith("Job dependency problem"));
      continue;
    }
    REQUIRE(parsed);
    CHECK(formatDependency(*parsed) == c.stored);
    auto again = parseStoredDependency(formatDependency(*parsed));
    REQUIRE(again);
    CHECK(*again == *parsed);
  }
}

TEST_CASE("dependency stored form keeps failed entries", "[core][dependency]") {
  auto stored = parseStoredDependency("afterok:4(failed)?afterany:5(unfulfilled)");
  REQUIRE(stored);
  REQUIRE(stored->entries.size() == 2);
  CHECK(stored->any);
  CHECK(stored->entries[0].status == DependencyStatus::Failed);
  CHECK(stored->entries[1].status == DependencyStatus::Unfulfilled);
  CHECK(formatDependency(*stored) == "afterok:4(failed)?afterany:5(unfulfilled)");
}

TEST_CASE("dependency rules", "[core][dependency]") {
  // Jobs the world knows, at t = 10,000.
  const int64_t now = 10000;
  const std::map<uint64_t, DependencyTarget> jobs = {
      {1, DependencyTarget{}},                                                          // pending
      {2, DependencyTarget{.started = true, .startTime = now - 120}},                   // running 2 min
      {3, DependencyTarget{.started = true, .ended = true, .completedOk = true, .startTime = 1, .endTime = 2}},
      {4, DependencyTarget{.started = true, .ended = true, .startTime = 1, .endTime = 2}},  // failed
      {5, DependencyTarget{.ended = true, .endTime = now - 60}},                         // cancelled pending 1 min ago
  };
  struct Case {
    const char* rule;
    const char* text;
    bool singletonBusy;
    DependencyVerdict verdict;
    const char* left;  // formatDependency of what remains
  };
  using V = DependencyVerdict;
  const Case cases[] = {
      {"after waits while its job is pending", "after:1", false, V::Wait, "after:1(unfulfilled)"},
      {"after is met once its job started", "after:2", false, V::Satisfied, ""},
      {"after+minutes waits out the minutes from the start", "after:2+3", false, V::Wait, "after:2+3(unfulfilled)"},
      {"after+minutes is met once they passed", "after:2+2", false, V::Satisfied, ""},
      {"after counts a cancellation before the start", "after:5", false, V::Satisfied, ""},
      {"after+minutes counts from that cancellation", "after:5+2", false, V::Wait, "after:5+2(unfulfilled)"},
      {"afterany waits while its job runs", "afterany:2", false, V::Wait, "afterany:2(unfulfilled)"},
      {"afterany is met however its job ended", "afterany:4", false, V::Satisfied, ""},
      {"afterok is met by a clean completion", "afterok:3", false, V::Satisfied, ""},
      {"afterok never comes after a failure", "afterok:4", false, V::Never, "afterok:4(failed)"},
      {"afterok counts a cancellation as a failure", "afterok:5", false, V::Never, "afterok:5(failed)"},
      {"afternotok is met by a failure", "afternotok:4", false, V::Satisfied, ""},
      {"afternotok never comes after a clean completion", "afternotok:3", false, V::Never, "afternotok:3(failed)"},
      {"aftercorr is afterok outside arrays", "aftercorr:4", false, V::Never, "aftercorr:4(failed)"},
      {"a forgotten job satisfies what waits for it", "afterok:99", false, V::Satisfied, ""},
      {"singleton waits while a namesake holds resources", "singleton", true, V::Wait, "singleton(unfulfilled)"},
      {"singleton is met when none does, and stays to be judged until the job starts", "singleton", false,
       V::Satisfied, "singleton(unfulfilled)"},
      {"all: a met singleton with every other entry met", "afterok:3,singleton", false, V::Satisfied,
       "singleton(unfulfilled)"},
      {"all: a met singleton waits for the other entries", "afterany:2,singleton", false, V::Wait,
       "afterany:2(unfulfilled),singleton(unfulfilled)"},
      {"any: a met singleton keeps the others for the next pass", "afterany:2?singleton", false, V::Satisfied,
       "afterany:2(unfulfilled)?singleton(unfulfilled)"},
      {"any: another entry met for good ends it all", "afterany:3?singleton", true, V::Satisfied, ""},
      {"all: met entries are dropped, the rest wait", "afterok:3,afterany:2", false, V::Wait,
       "afterany:2(unfulfilled)"},
      {"all: one failure is never", "afterok:4,afterany:2", false, V::Never,
       "afterok:4(failed),afterany:2(unfulfilled)"},
      {"all: met once every entry is", "afterok:3,afternotok:4,after:2", false, V::Satisfied, ""},
      {"any: one met entry is enough", "afterok:4?afterany:3", false, V::Satisfied, ""},
      {"any: a failure leaves the others to wait", "afterok:4?afterany:2", false, V::Wait,
       "afterok:4(failed)?afterany:2(unfulfilled)"},
      {"any: never once every entry failed", "afterok:4?afternotok:3", false, V::Never,
       "afterok:4(failed)?afternotok:3(failed)"},
  };
  for (const Case& c : cases) {
    INFO(c.rule);
    auto dependency = parseDependency(c.text);
    REQUIRE(dependency);
    bool busy = c.singletonBusy;
    DependencyWorld world{.job = [&jobs](uint64_t id) -> std::optional<DependencyTarget> {
                            auto found = jobs.find(id);
                            if (found == jobs.end()) return std::nullopt;
                            return found->second;
                          },
                          .singletonBusy = [busy] { return busy; },
                          .now = now};
    DependencyCheck check = checkDependency(*dependency, world);
    CHECK(check.verdict == c.verdict);
    CHECK(formatDependency(check.remaining) == c.left);
  }
}

TEST_CASE("dependency rules on array tasks", "[core][dependency]") {
  // Array 20: task 0 completed well, task 1 failed, task 2 runs, task 3 is
  // still pending in the array's record. The array as a whole runs.
  const std::map<uint32_t, DependencyTarget> tasks = {
      {0, DependencyTarget{.started = true, .ended = true, .completedOk = true, .startTime = 1, .endTime = 2}},
      {1, DependencyTarget{.started = true, .ended = true, .startTime = 1, .endTime = 2}},
      {2, DependencyTarget{.started = true, .startTime = 1}},
      {3, DependencyTarget{}},
  };
  struct Case {
    const char* rule;
    const char* text;
    int64_t selfTask;
    bool selfHoldsTasks;
    DependencyVerdict verdict;
    const char* left;
  };
  using V = DependencyVerdict;
  const Case cases[] = {
      {"afterok on a task waits for that task alone", "afterok:20_2", -1, false, V::Wait, "afterok:20_2(unfulfilled)"},
      {"afterok on a task is met by its clean completion", "afterok:20_0", -1, false, V::Satisfied, ""},
      {"afterok on a task that failed is never", "afterok:20_1", -1, false, V::Never, "afterok:20_1(failed)"},
      {"afternotok on a task that failed is met", "afternotok:20_1", -1, false, V::Satisfied, ""},
      {"after on a task still pending waits", "after:20_3", -1, false, V::Wait, "after:20_3(unfulfilled)"},
      {"a task the array no longer has satisfies, as a forgotten job", "afterok:20_9", -1, false, V::Satisfied, ""},
      {"aftercorr: a task waits for the task of its index", "aftercorr:20", 2, false, V::Wait,
       "aftercorr:20(unfulfilled)"},
      {"aftercorr: met by the clean completion of its index", "aftercorr:20", 0, false, V::Satisfied, ""},
      {"aftercorr: never once its index failed", "aftercorr:20", 1, false, V::Never, "aftercorr:20(failed)"},
      {"aftercorr: a record of pending tasks keeps the entry for the next", "aftercorr:20", 0, true, V::Satisfied,
       "aftercorr:20(unfulfilled)"},
      {"aftercorr: an index the array lacks waits for the whole array", "aftercorr:20", 7, false, V::Wait,
       "aftercorr:20(unfulfilled)"},
      {"aftercorr: a job outside arrays waits for the whole array", "aftercorr:20", -1, false, V::Wait,
       "aftercorr:20(unfulfilled)"},
  };
  for (const Case& c : cases) {
    INFO(c.rule);
    auto dependency = parseDependency(c.text);
    REQUIRE(dependency);
    DependencyWorld world{
        .job = [](uint64_t id) -> std::optional<DependencyTarget> {
          if (id != 20) return std::nullopt;
          return DependencyTarget{.started = true, .startTime = 1};
        },
        .arrayTask = [&tasks](uint64_t array, uint32_t task) -> std::optional<DependencyTarget> {
          auto found = tasks.find(task);
          if (array != 20 || found == tasks.end()) return std::nullopt;
          return found->second;
        },
        .selfTask = c.selfTask,
        .selfHoldsArrayTasks = c.selfHoldsTasks,
        .now = 10000};
    DependencyCheck check = checkDependency(*dependency, world);
    CHECK(check.verdict == c.verdict);
    CHECK(formatDependency(check.remaining) == c.left);
  }
}

TEST_CASE("a failed entry stays failed once its job is forgotten", "[core][dependency]") {
  auto stored = parseStoredDependency("afterok:4(failed),afterany:8(unfulfilled)");
  REQUIRE(stored);
  DependencyWorld nobody{.job = [](uint64_t) { return std::optional<DependencyTarget>{}; }, .now = 5};
  DependencyCheck check = checkDependency(*stored, nobody);
  CHECK(check.verdict == DependencyVerdict::Never);
  CHECK(formatDependency(check.remaining) == "afterok:4(failed)");
}

TEST_CASE("dependency names its jobs once each", "[core][dependency]") {
  auto dependency = parseDependency("afterok:9:3,afterany:9,singleton");
  REQUIRE(dependency);
  CHECK(dependencyJobIds(*dependency) == std::vector<uint64_t>{3, 9});
}

TEST_CASE("a dependency that leads back to its own job closes a circle", "[core][dependency]") {
  // 5 waits for 6, 6 for 7; 8 waits for nothing.
  std::map<uint64_t, Dependency> waiting = {{5, *parseDependency("afterok:6")},
                                            {6, *parseDependency("afterany:8,afterany:7")}};
  auto dependencyOf = [&waiting](uint64_t id) -> const Dependency* {
    auto found = waiting.find(id);
    return found == waiting.end() ? nullptr : &found->second;
  };
  struct Case {
    const char* rule;
    uint64_t self;
    const char* text;
    bool circle;
  };
  const Case cases[] = {
      {"a job naming itself", 9, "afterok:9", true},
      {"a job naming one that waits for it", 7, "afterany:5", true},
      {"a job naming one that waits for it through another", 8, "after:5", true},
      {"a job naming unrelated ones", 9, "afterok:5?afterany:8", false},
      {"a job naming an unknown one", 9, "afterok:1234", false},
      {"singleton names no job", 5, "singleton", false},
  };
  for (const Case& c : cases) {
    INFO(c.rule);
    CHECK(closesCircle(*parseDependency(c.text), c.self, dependencyOf) == c.circle);
  }
}
