#include "common/config/cgroup_conf.h"

#include <unordered_set>

#include "common/config/inert_keys.h"
#include "common/config/value_parse.h"

namespace gantry::config {
namespace {

Result<double> parsePercent(std::string_view text) {
  std::string t(text);
  if (!t.empty() && t.back() == '%') t.pop_back();
  std::size_t dot = t.find('.');
  auto whole = parseUint(t.substr(0, dot), 100000);
  if (!whole) return Error{"\"" + std::string(text) + "\" is not a percentage"};
  double value = static_cast<double>(whole.value());
  if (dot != std::string::npos) {
    std::string fraction = t.substr(dot + 1);
    auto digits = parseUint(fraction, 999999);
    if (!digits || fraction.size() > 6) return Error{"\"" + std::string(text) + "\" is not a percentage"};
    double scale = 1;
    for (std::size_t i = 0; i < fraction.size(); ++i) scale *= 10;
    value += static_cast<double>(digits.value()) / scale;
  }
  return value;
}

bool isIgnoredCgroupKey(const std::string& key) {
  static const std::unordered_set<std::string> kIgnored = {
      "allowedkmemspace", "constrainkmemspace", "maxkmempercent", "minkmemspace", "maxrampercent",
      "maxswappercent", "memoryswappiness", "minramspace", "systemdtimeout", "signalchildrenprocesses",
      "cgroupautomount", "cgroupreleaseagentdir", "constraindeviceshared"};
  return kIgnored.count(key) > 0;
}

}  // namespace

CgroupConfParse interpretCgroupConf(const ReadResult& read, const std::string& fileName, const GantryConf& gantry) {
  CgroupConfParse out;
  CgroupConf& conf = out.conf;
  Diagnostics& diag = out.diagnostics;
  diag = read.diagnostics;
  conf.present = true;
  conf.file = fileName;
  std::string memoryFile;
  int memoryLine = 0;
  InertKeyNotes inert(diag);
  for (const auto& line : read.lines) {
    for (const auto& pair : line.pairs) {
      std::size_t errorsBefore = diag.errors.size(), warningsBefore = diag.warnings.size();
      std::string key = toLower(pair.key);
      auto fail = [&](const std::string& rule) { diag.error(line.file, line.line, pair.key + "=" + pair.value + ": " + rule); };
      auto setBool = [&](bool& field) {
        auto value = parseBool(pair.value);
        if (!value) fail(value.error());
        else field = value.value();
      };
      auto setPercent = [&](double& field) {
        auto value = parsePercent(pair.value);
        if (!value) fail(value.error());
        else field = value.value();
      };
      if (key == "cgroupmountpoint") {
        conf.mountPoint = pair.value;
      } else if (key == "cgroupplugin") {
        std::string lower = toLower(pair.value);
        if (lower != "autodetect" && lower != "cgroup/v1" && lower != "cgroup/v2" && lower != "disabled") {
          fail("expected autodetect, cgroup/v1, cgroup/v2 or disabled");
        } else {
          conf.plugin = lower;
        }
      } else if (key == "constraincores") {
        setBool(conf.constrainCores);
      } else if (key == "constrainramspace") {
        setBool(conf.constrainRamSpace);
      } else if (key == "constrainswapspace") {
        setBool(conf.constrainSwapSpace);
      } else if (key == "constraindevices") {
        setBool(conf.constrainDevices);
      } else if (key == "constraindevicememory") {
        setBool(conf.constrainDeviceMemory);
        memoryFile = line.file;
        memoryLine = line.line;
      } else if (key == "enablecontrollers") {
        setBool(conf.enableControllers);
      } else if (key == "cgroupjobidpaths") {
        setBool(conf.cgroupJobIdPaths);
      } else if (key == "ignoresystemd") {
        setBool(conf.ignoreSystemd);
      } else if (key == "allowedramspace") {
        setPercent(conf.allowedRamSpacePercent);
      } else if (key == "allowedswapspace") {
        setPercent(conf.allowedSwapSpacePercent);
      } else if (!isIgnoredCgroupKey(key)) {
        diag.warn(line.file, line.line, "unknown key \"" + pair.key + "\" is ignored");
      }
      if (diag.errors.size() == errorsBefore && diag.warnings.size() == warningsBefore) {
        inert.check(KeyPlace::CgroupConf, line, pair);
      }
    }
  }
  if (conf.constrainDeviceMemory) {
    if (!conf.constrainDevices) {
      diag.error(memoryFile, memoryLine,
                 "ConstrainDeviceMemory=yes requires ConstrainDevices=yes (without the device filter the memory "
                 "limits could be bypassed through devices the job was not given)");
    }
    if (!gantry.hasTaskPlugin("task/cgroup")) {
      diag.error(memoryFile, memoryLine,
                 "ConstrainDeviceMemory=yes requires TaskPlugin to include task/cgroup in " +
                     (gantry.sourceFile.empty() ? std::string("gantry.conf") : gantry.sourceFile));
    }
  }
  return out;
}

namespace {
Result<CgroupConf> toResult(CgroupConfParse parsed) {
  if (!parsed.diagnostics.ok()) return Error{parsed.diagnostics.errorText()};
  parsed.conf.warnings = parsed.diagnostics.warnings;
  return parsed.conf;
}
}  // namespace

Result<CgroupConf> loadCgroupConf(const std::filesystem::path& path, const GantryConf& gantry) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    CgroupConf defaults;
    defaults.file = path.string();
    return defaults;
  }
  return toResult(interpretCgroupConf(readConfFile(path), path.string(), gantry));
}

Result<CgroupConf> parseCgroupConf(std::string_view text, const std::string& fileName, const GantryConf& gantry,
                                   const ReadOptions& options) {
  return toResult(interpretCgroupConf(readConfText(text, fileName, options), fileName, gantry));
}

}  // namespace gantry::config
