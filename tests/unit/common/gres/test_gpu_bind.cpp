// --gpu-bind values: one row per accepted form, one per refusal.
#include <catch2/catch.hpp>

#include "common/gres/gpu_bind.h"

using namespace gantry::gres;

TEST_CASE("--gpu-bind forms are read as Slurm spells them", "[gres][gpu-bind]") {
  struct Row {
    const char* rule;
    const char* text;
    GpuBindMode mode;
    bool verbose;
    std::vector<int> ids;
    std::vector<uint64_t> masks;
    int count;
  };
  const Row rows[] = {
      {"none binds nothing", "none", GpuBindMode::None, false, {}, {}, 0},
      {"closest", "closest", GpuBindMode::Closest, false, {}, {}, 0},
      {"verbose, prefixes any form", "verbose,closest", GpuBindMode::Closest, true, {}, {}, 0},
      {"verbose alone reports without binding", "verbose", GpuBindMode::None, true, {}, {}, 0},
      {"map_gpu lists one id per task", "map_gpu:3,1,2", GpuBindMode::MapGpu, false, {3, 1, 2}, {}, 0},
      {"map_gpu repeats with *count", "map_gpu:1*2,0*3", GpuBindMode::MapGpu, false, {1, 1, 0, 0, 0}, {}, 0},
      {"mask_gpu masks are hex with or without 0x", "verbose,mask_gpu:0x6,c,0X1*2", GpuBindMode::MaskGpu, true,
       {}, {0x6, 0xc, 0x1, 0x1}, 0},
      {"single takes tasks per GPU", "single:3", GpuBindMode::Single, false, {}, {}, 3},
      {"per_task takes GPUs per task", "per_task:2", GpuBindMode::PerTask, false, {}, {}, 2},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto bind = parseGpuBind(row.text);
      REQUIRE(bind.ok());
      CHECK(bind->mode == row.mode);
      CHECK(bind->verbose == row.verbose);
      CHECK(bind->gpuIds == row.ids);
      CHECK(bind->masks == row.masks);
      CHECK(bind->count == row.count);
    }
  }
}

TEST_CASE("malformed --gpu-bind values are refused with what is wrong", "[gres][gpu-bind]") {
  struct Row {
    const char* rule;
    const char* text;
    const char* message;
  };
  const Row rows[] = {
      {"an unknown form", "nearest", "'nearest' is not a GPU binding: expected [verbose,]none, closest"},
      {"an empty value", "", "'' is not a GPU binding"},
      {"verbose followed by nothing", "verbose,", "'' is not a GPU binding"},
      {"a map_gpu id that is not a number", "map_gpu:0,x", "map_gpu: 'x' is not a GPU id"},
      {"a map_gpu id past 63", "map_gpu:64", "map_gpu: '64' is not a GPU id"},
      {"an empty map_gpu list", "map_gpu:", "the map_gpu list is empty"},
      {"an empty item in a list", "map_gpu:0,,1", "map_gpu: '' is not a GPU id"},
      {"a repeat count of zero", "map_gpu:0*0", "'0' is not a positive number (the repeat count after '*' in map_gpu)"},
      {"a mask that is not hex", "mask_gpu:0xg", "mask_gpu: '0xg' is not a hexadecimal GPU mask"},
      {"a mask selecting nothing", "mask_gpu:0x0", "mask_gpu: '0x0' selects no GPU"},
      {"single without a count", "single:", "single: '' is not a positive number (tasks per GPU)"},
      {"single of zero", "single:0", "single: '0' is not a positive number (tasks per GPU)"},
      {"per_task that is not a number", "per_task:two", "per_task: 'two' is not a positive number (GPUs per task)"},
      {"two bindings at once", "closest,none", "'closest,none' is not a GPU binding"},
      {"a huge repeat", "map_gpu:0*5000", "the map_gpu list has more than 4096 items"},
  };
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.rule) {
      auto bind = parseGpuBind(row.text);
      REQUIRE_FALSE(bind.ok());
      CHECK_THAT(bind.error(), Catch::StartsWith(row.message));
    }
  }
}
