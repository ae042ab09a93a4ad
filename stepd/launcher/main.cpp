// gantrystepd --step-dir D: runs the step described by D/spec.json. Started
// by gantryd in its own session; see stepd/launcher/step_runner.h.
#include <cstdio>
#include <cstring>
#include <string>

#include "stepd/launcher/step_runner.h"

int main(int argc, char** argv) {
  std::string step_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--step-dir" && i + 1 < argc) {
      step_dir = argv[++i];
    } else if (arg.rfind("--step-dir=", 0) == 0) {
      step_dir = arg.substr(std::strlen("--step-dir="));
    } else {
      std::fprintf(stderr, "gantrystepd: unknown argument '%s'\nusage: gantrystepd --step-dir DIR\n", arg.c_str());
      return 2;
    }
  }
  if (step_dir.empty()) {
    std::fprintf(stderr, "gantrystepd: option --step-dir is required\nusage: gantrystepd --step-dir DIR\n");
    return 2;
  }
  return gantry::stepd::runStep({.step_dir = step_dir});
}
