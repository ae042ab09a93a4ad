#include "common/config/resctrl_conf.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/config/diagnostic.h"

namespace gantry::config {
namespace {

// yaml-cpp recurses once per nesting level; deep input could exhaust the
// stack, and no valid resctrl.yaml nests more than a few levels.
constexpr int kMaxNesting = 64;
constexpr std::size_t kMaxBytes = 1u << 20;

bool nestsTooDeep(std::string_view text) {
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '{') {
      if (++depth > kMaxNesting) return true;
    } else if (c == ']' || c == '}') {
      depth = std::max(0, depth - 1);
    }
  }
  return false;
}

int lineOf(const YAML::Node& node) { return node.Mark().line >= 0 ? node.Mark().line + 1 : 0; }

bool isString(const YAML::Node& node) { return node.IsDefined() && node.IsScalar(); }

class Interpreter {
 public:
  Interpreter(const std::string& file, Diagnostics& diag) : file_(file), diag_(diag) {}

  ResctrlConf run(const YAML::Node& root) {
    ResctrlConf conf;
    conf.present = true;
    conf.file = file_;
    if (!root.IsMap()) {
      diag_.error(file_, lineOf(root), "the top level must be a mapping with a 'groups' list");
      return conf;
    }
    bool hasGroups = false;
    for (const auto& entry : root) {
      std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
      if (key == "groups") {
        hasGroups = true;
        readGroups(entry.second, conf);
      } else if (key == "mount_options") {
        readMountOptions(entry.second, conf);
      } else {
        diag_.error(file_, lineOf(entry.first), "unknown key \"" + key + "\" (expected groups or mount_options)");
      }
    }
    if (!hasGroups) diag_.error(file_, 0, "'groups' is missing; the three groups must be defined");
    else checkAllNamesPresent(conf);
    return conf;
  }

 private:
  void readGroups(const YAML::Node& groups, ResctrlConf& conf) {
    if (!groups.IsSequence()) {
      diag_.error(file_, lineOf(groups), "'groups' must be a list of {name, schemata} entries");
      return;
    }
    for (const auto& group : groups) {
      int line = lineOf(group);
      if (!group.IsMap()) {
        diag_.error(file_, line, "each group must be a mapping with name and schemata");
        continue;
      }
      ResctrlGroup out;
      out.line = line;
      for (const auto& field : group) {
        std::string key = field.first.IsScalar() ? field.first.Scalar() : "";
        if (key == "name" && isString(field.second)) {
          out.name = field.second.Scalar();
        } else if (key == "schemata" && isString(field.second)) {
          out.schemata = field.second.Scalar();
        } else if (key == "name" || key == "schemata") {
          diag_.error(file_, lineOf(field.second), "group " + key + " must be a string");
        } else {
          diag_.error(file_, lineOf(field.first), "unknown group key \"" + key + "\" (expected name and schemata)");
        }
      }
      if (!validName(out.name)) {
        diag_.error(file_, line,
                    "group name \"" + out.name + "\" is not accepted (the groups are cpu_only, gpu_one_per_socket "
                                                 "and gpu_two_per_socket)");
        continue;
      }
      if (conf.find(out.name)) {
        diag_.error(file_, line, "group " + out.name + " is defined twice");
        continue;
      }
      if (out.schemata.find_first_not_of(" \t\r\n") == std::string::npos) {
        diag_.error(file_, line, "group " + out.name + " has no schemata");
      }
      conf.groups.push_back(std::move(out));
    }
  }

  void readMountOptions(const YAML::Node& node, ResctrlConf& conf) {
    if (isString(node)) {
      conf.mountOptions = node.Scalar();
      return;
    }
    if (node.IsSequence()) {
      for (const auto& item : node) {
        if (!isString(item)) {
          diag_.error(file_, lineOf(item), "mount_options entries must be strings");
          return;
        }
        if (!conf.mountOptions.empty()) conf.mountOptions += ",";
        conf.mountOptions += item.Scalar();
      }
      return;
    }
    if (node.IsNull()) return;
    diag_.error(file_, lineOf(node), "mount_options must be a string or a list of strings");
  }

  void checkAllNamesPresent(const ResctrlConf& conf) {
    for (std::string_view name : kResctrlGroupNames) {
      if (!conf.find(name)) {
        diag_.error(file_, 0, "group " + std::string(name) + " is missing; all three groups must be defined");
      }
    }
  }

  static bool validName(const std::string& name) {
    return std::find(kResctrlGroupNames.begin(), kResctrlGroupNames.end(), name) != kResctrlGroupNames.end();
  }

  const std::string& file_;
  Diagnostics& diag_;
};

}  // namespace

const ResctrlGroup* ResctrlConf::find(std::string_view name) const {
  for (const auto& group : groups) {
    if (group.name == name) return &group;
  }
  return nullptr;
}

Result<ResctrlConf> parseResctrlConf(std::string_view text, const std::string& fileName) {
  if (text.size() > kMaxBytes) return Error{fileName + ": the file is larger than " + std::to_string(kMaxBytes) + " bytes"};
  if (nestsTooDeep(text)) return Error{fileName + ": nests more than " + std::to_string(kMaxNesting) + " levels"};
  Diagnostics diag;
  ResctrlConf conf;
  try {
    YAML::Node root = YAML::Load(std::string(text));
    conf = Interpreter(fileName, diag).run(root);
  } catch (const YAML::Exception& e) {
    int line = e.mark.line >= 0 ? e.mark.line + 1 : 0;
    diag.error(fileName, line, "not valid YAML: " + e.msg);
  } catch (const std::exception& e) {
    diag.error(fileName, 0, std::string("cannot be read: ") + e.what());
  }
  if (!diag.ok()) return Error{diag.errorText()};
  return conf;
}

Result<ResctrlConf> loadResctrlConf(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    ResctrlConf absent;
    absent.file = path.string();
    return absent;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path.string() + ": cannot open the file"};
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parseResctrlConf(buffer.str(), path.string());
}

}  // namespace gantry::config
