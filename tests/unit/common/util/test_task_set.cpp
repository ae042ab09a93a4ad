#include "common/util/task_set.h"

#include <catch2/catch.hpp>

using gantry::arrayShape;
using gantry::parseArrayOption;
using gantry::TaskSet;

namespace {

std::vector<uint32_t> indexesOf(std::string_view text, uint32_t limit = 1001) {
  auto set = TaskSet::parse(text, limit);
  REQUIRE(set);
  return set->indexes();
}

std::string refusal(std::string_view option, uint32_t limit = 1001) {
  auto parsed = parseArrayOption(option, limit);
  REQUIRE_FALSE(parsed);
  return parsed.error();
}

}  // namespace

TEST_CASE("task set: items are indexes, ranges and stepped ranges, merged", "[task_set]") {
  CHECK(indexesOf("7") == std::vector<uint32_t>{7});
  CHECK(indexesOf("2-5") == std::vector<uint32_t>{2, 3, 4, 5});
  CHECK(indexesOf("3-17:5") == std::vector<uint32_t>{3, 8, 13});
  CHECK(indexesOf("9,1-3,2") == std::vector<uint32_t>{1, 2, 3, 9});
}

TEST_CASE("task set: malformed items are refused, naming the item", "[task_set]") {
  CHECK(refusal("") .find("no task indexes") != std::string::npos);
  CHECK(refusal("1,,2").find("empty item") != std::string::npos);
  CHECK(refusal("5-2").find("\"5-2\" ends before it starts") != std::string::npos);
  CHECK(refusal("1-9:0").find("\"1-9:0\" has a step that is not a positive number") != std::string::npos);
  CHECK(refusal("4:2").find("has a step but no range") != std::string::npos);
  CHECK(refusal("-3").find("\"-3\" is not an index") != std::string::npos);
  CHECK(refusal("a-b").find("\"a-b\"") != std::string::npos);
  CHECK(refusal("1-3%x").find("throttle \"%x\"") != std::string::npos);
  CHECK(refusal("99999999999").find("is not an index") != std::string::npos);
}

TEST_CASE("task set: the option may come in brackets, as squeue prints it", "[task_set]") {
  CHECK(parseArrayOption("[0-100]", 1001)->tasks.size() == 101);
  auto throttled = parseArrayOption("[1,3,5-9]%2", 1001);
  REQUIRE(throttled);
  CHECK(throttled->tasks.indexes() == std::vector<uint32_t>{1, 3, 5, 6, 7, 8, 9});
  CHECK(throttled->throttle == 2);
  CHECK(parseArrayOption("[0-15%4]", 1001)->throttle == 4);
  CHECK(refusal("[0-4").find("unmatched bracket") != std::string::npos);
  CHECK(refusal("[0-4]]").find("unmatched bracket") != std::string::npos);
  CHECK(refusal("[[0-4]").find("unmatched bracket") != std::string::npos);
  CHECK(refusal("0-4]").find("\"0-4]\" is not an index") != std::string::npos);
}

TEST_CASE("task set: an index at or above MaxArraySize is refused with the limit", "[task_set]") {
  CHECK(refusal("0-40", 40) == "Invalid job array specification: index 40 is not below MaxArraySize (40)");
  CHECK(parseArrayOption("0-39", 40));
}

TEST_CASE("task set: the throttle follows the indexes", "[task_set]") {
  auto parsed = parseArrayOption("0-20:5%3", 100);
  REQUIRE(parsed);
  CHECK(parsed->throttle == 3);
  CHECK(parsed->tasks.indexes() == std::vector<uint32_t>{0, 5, 10, 15, 20});
  CHECK(parseArrayOption("1-4", 100)->throttle == 0);
}

TEST_CASE("task set: format writes one stepped run or ranges, and parse reads it back", "[task_set]") {
  struct Row { const char* rule; const char* given; const char* shown; };
  const Row rows[] = {
      {"single index", "6", "6"},
      {"a contiguous range", "3-12", "3-12"},
      {"ranges and singles", "1-3,5,8-9", "1-3,5,8-9"},
      {"a long stepped run", "2-62:6", "2-62:6"},
      {"a short stepped run stays a list", "0-8:4", "0,4,8"},
      {"stepped but not throughout", "0-40:5,41", "0,5,10,15,20,25,30,35,40-41"},
  };
  for (const auto& row : rows) {
    INFO(row.rule);
    auto set = TaskSet::parse(row.given, 1001);
    REQUIRE(set);
    CHECK(set->format() == row.shown);
    auto again = TaskSet::parse(set->format(), 1001);
    REQUIRE(again);
    CHECK(*again == *set);
  }
}

TEST_CASE("task set: erase keeps the count and the lowest index", "[task_set]") {
  auto set = TaskSet::parse("10-14", 100);
  REQUIRE(set);
  CHECK(set->first() == 10);
  CHECK(set->erase(10));
  CHECK_FALSE(set->erase(10));
  CHECK(set->first() == 11);
  CHECK(set->size() == 4);
  CHECK(set->erase(12));
  CHECK(set->format() == "11,13-14");
  CHECK(set->last() == 14);
  for (uint32_t i : {11u, 13u, 14u}) CHECK(set->erase(i));
  CHECK(set->empty());
  CHECK(set->format().empty());
}

TEST_CASE("task set: a 100,000-task array is a bitset, not a list", "[task_set]") {
  auto set = TaskSet::parse("0-99999", 100001);
  REQUIRE(set);
  CHECK(set->size() == 100000);
  CHECK(set->format() == "0-99999");
  CHECK(sizeof(TaskSet) < 64);
}

TEST_CASE("task set: the array's shape for its tasks' environment", "[task_set]") {
  auto shape = arrayShape("4-40:6%2", 1001);
  CHECK(shape.count == 7);
  CHECK(shape.min == 4);
  CHECK(shape.max == 40);
  CHECK(shape.step == 6);
  auto plain = arrayShape("3,9,12", 1001);
  CHECK(plain.count == 3);
  CHECK(plain.step == 1);
}
