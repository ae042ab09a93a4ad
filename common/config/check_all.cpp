#include "common/config/check_all.h"

#include <set>

#include "common/config/cgroup_conf.h"
#include "common/config/gantry_conf.h"
#include "common/config/gres_conf.h"
#include "common/config/resctrl_conf.h"

namespace gantry::config {
namespace {

namespace fs = std::filesystem;

// Adds diagnostics without repeating one already reported (gres.conf lines
// shared by many nodes would otherwise repeat their error per node).
void addUnique(std::vector<Diagnostic>& into, const std::vector<Diagnostic>& from, std::set<std::string>& seen) {
  for (const auto& d : from) {
    if (seen.insert(d.toString()).second) into.push_back(d);
  }
}

// resctrl.yaml reports its errors as text; split it back into diagnostics.
void addErrorText(std::vector<Diagnostic>& into, const std::string& text, const std::string& file) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    std::string prefix = file + ":";
    Diagnostic d{file, 0, line};
    if (line.rfind(prefix, 0) == 0) {
      std::string rest = line.substr(prefix.size());
      std::size_t colon = rest.find(':');
      std::string number = rest.substr(0, colon);
      if (colon != std::string::npos && !number.empty() && number.find_first_not_of("0123456789") == std::string::npos &&
          number.size() < 9) {
        d.line = std::stoi(number);
        d.message = rest.substr(colon + 2 <= rest.size() ? colon + 2 : rest.size());
      } else {
        d.message = rest.substr(rest.find_first_not_of(' ') == std::string::npos ? rest.size() : rest.find_first_not_of(' '));
      }
    }
    into.push_back(d);
    start = end + 1;
  }
}

}  // namespace

std::string CheckReport::toString() const {
  std::string out;
  for (const auto& d : errors) out += d.toString() + "\n";
  for (const auto& d : warnings) out += "warning: " + d.toString() + "\n";
  for (const auto& d : notes) out += "note: " + d.toString() + "\n";
  return out;
}

CheckReport checkAll(const fs::path& confDir, const CheckOptions& options) {
  CheckReport report;
  std::set<std::string> seenErrors, seenWarnings, seenNotes;

  fs::path gantryFile = confDir / "gantry.conf";
  GantryConfParse gantry = interpretGantryConf(readConfFile(gantryFile), gantryFile.string());
  addUnique(report.errors, gantry.diagnostics.errors, seenErrors);
  addUnique(report.warnings, gantry.diagnostics.warnings, seenWarnings);
  addUnique(report.notes, gantry.diagnostics.notes, seenNotes);

  std::error_code ec;
  fs::path gresFile = confDir / "gres.conf";
  if (fs::exists(gresFile, ec)) {
    GresLinesParse lines = parseGresLines(readConfFile(gresFile));
    addUnique(report.errors, lines.diagnostics.errors, seenErrors);
    addUnique(report.warnings, lines.diagnostics.warnings, seenWarnings);
    addUnique(report.notes, lines.diagnostics.notes, seenNotes);
    std::set<std::string> nodes;
    if (!options.nodeName.empty()) {
      nodes.insert(options.nodeName);
    } else {
      for (const auto& node : gantry.conf.nodes) nodes.insert(node.name);
      for (const auto& line : lines.lines) nodes.insert(line.nodes.begin(), line.nodes.end());
    }
    for (const auto& node : nodes) {
      Diagnostics perNode;
      selectGresForNode(lines, node, perNode);
      addUnique(report.errors, perNode.errors, seenErrors);
      addUnique(report.warnings, perNode.warnings, seenWarnings);
    }
  }

  fs::path cgroupFile = confDir / "cgroup.conf";
  if (fs::exists(cgroupFile, ec)) {
    CgroupConfParse cgroup = interpretCgroupConf(readConfFile(cgroupFile), cgroupFile.string(), gantry.conf);
    addUnique(report.errors, cgroup.diagnostics.errors, seenErrors);
    addUnique(report.warnings, cgroup.diagnostics.warnings, seenWarnings);
    addUnique(report.notes, cgroup.diagnostics.notes, seenNotes);
  }

  fs::path resctrlFile = confDir / "resctrl.yaml";
  auto resctrl = loadResctrlConf(resctrlFile);
  if (!resctrl) addErrorText(report.errors, resctrl.error(), resctrlFile.string());
  return report;
}

}  // namespace gantry::config
