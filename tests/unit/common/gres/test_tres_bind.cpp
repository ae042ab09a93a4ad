// --tres-bind values: one row per rule Slurm's controller applies.
#include <catch2/catch.hpp>

#include "common/gres/tres_bind.h"

using namespace gantry::gres;

TEST_CASE("--tres-bind values Slurm accepts are accepted", "[gres][tres-bind]") {
  struct Row {
    const char* rule;
    const char* text;
  };
  const Row rows[] = {
      {"an empty value clears the binding", ""},
      {"closest", "gres/gpu:closest"},
      {"none", "gres/gpu:none"},
      {"verbose, before a binding", "gres/gpu:verbose,closest"},
      {"words are prefixes without case", "gres/gpu:CLOSESTLY"},
      {"a decimal map list", "gres/gpu:map:3,2"},
      {"an empty map list", "gres/gpu:map:"},
      {"a map item repeated", "gres/gpu:map:4*3,1"},
      {"the old map_gpu spelling", "gres/gpu:map_gpu:7"},
      {"a hexadecimal mask list without 0x", "gres/gpu:mask:f0,e"},
      {"mask items with 0x", "gres/gpu:mask:0xc,0x30"},
      {"a mask item repeated", "gres/gpu:mask:0x4*5"},
      {"an empty mask list", "gres/gpu:mask:"},
      {"the old mask_gpu spelling", "gres/gpu:mask_gpu:0x8"},
      {"empty list items are skipped", "gres/gpu:map:5,,6,"},
      {"per_task takes a count", "gres/gpu:per_task:3"},
      {"single takes a count", "gres/gpu:single:5"},
      {"another GRES binds too", "gres/nic:closest"},
      {"items joined by +", "gres/gpu:map:2+gres/nic:closest"},
      {"shared GRES per_task", "gres/shard:per_task:6"},
      {"shared GRES none", "gres/mps:verbose,none"},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) { CHECK(checkTresBind(row.text).ok()); }
  }
}

TEST_CASE("--tres-bind values Slurm refuses are refused, naming the item", "[gres][tres-bind]") {
  struct Row {
    const char* rule;
    const char* text;
    const char* message;
  };
  const Row rows[] = {
      {"an item without a binding", "gres/gpu", "'gres/gpu': expected gres/<name>:<binding>"},
      {"a TRES that is not a GRES", "cpu:closest", "'cpu:closest': only gres/<name> can be bound"},
      {"an unknown binding", "gres/gpu:nearest", "unknown binding 'nearest'"},
      {"a letter in a map list", "gres/gpu:map:7q", "offending character 'q'"},
      {"hexadecimal in a map list", "gres/gpu:map:0x10", "offending character 'x'"},
      {"a non-hex letter in a mask list", "gres/gpu:mask:ag", "offending character 'g'"},
      {"x without a leading 0 in a mask list", "gres/gpu:mask:x30", "offending character 'x'"},
      {"upper-case 0X is not a prefix", "gres/gpu:mask:0X3", "offending character 'X'"},
      {"two repeats in one item", "gres/gpu:map:2*3*4", "'2*3*4' has a bad repeat count"},
      {"a repeat without an item", "gres/gpu:map:**", "'**' has a bad repeat count"},
      {"a repeat count that is not a number", "gres/gpu:mask:3*b", "'3*b' has a bad repeat count"},
      {"a negative per_task", "gres/gpu:per_task:-2", "'-2' is not a count of 0 or more"},
      {"a count too large", "gres/gpu:single:99999999999999999999", "is not a count of 0 or more"},
      {"shared GRES bound by map", "gres/shard:map:1", "a shared GRES binds only as [verbose,]none or per_task:<N>"},
      {"a bad second item", "gres/gpu:closest+gres/nic:map:z", "'gres/nic:map:z': offending character 'z'"},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto status = checkTresBind(row.text);
      REQUIRE_FALSE(status.ok());
      CHECK_THAT(status.error(), Catch::Contains(row.message));
    }
  }
}

TEST_CASE("the GPU binding a step follows comes from tres-bind when set", "[gres][tres-bind]") {
  struct Row {
    const char* rule;
    const char* tresBind;
    const char* gpuBind;
    const char* expected;
  };
  const Row rows[] = {
      {"no tres-bind: --gpu-bind", "", "closest", "closest"},
      {"map: becomes map_gpu:", "gres/gpu:map:1,0", "", "map_gpu:1,0"},
      {"mask: becomes mask_gpu:, verbose kept", "gres/gpu:verbose,mask:0x3", "", "verbose,mask_gpu:0x3"},
      {"tres-bind wins over --gpu-bind", "gres/gpu:single:2", "closest", "single:2"},
      {"the gpu item among others", "gres/nic:closest+gres/gpu:per_task:2", "", "per_task:2"},
      {"no gpu item: no binding", "gres/nic:closest", "closest", ""},
      {"an empty list binds nothing", "gres/gpu:map:", "", ""},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) { CHECK(effectiveGpuBind(row.tresBind, row.gpuBind) == row.expected); }
  }
}
