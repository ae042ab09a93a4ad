#include "common/config/gres_spec.h"

#include "common/config/value_parse.h"

namespace gantry::config {
namespace {

bool looksLikeCount(std::string_view text) { return !text.empty() && text[0] >= '0' && text[0] <= '9'; }

}  // namespace

Result<std::vector<GresCount>> parseGresList(std::string_view text) {
  std::vector<GresCount> out;
  if (iequals(text, "(null)") || iequals(text, "none")) return out;
  for (const std::string& item : splitList(text)) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
      std::size_t colon = item.find(':', start);
      fields.push_back(item.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    GresCount gres;
    gres.name = fields[0];
    if (gres.name.empty()) return Error{"GRES item \"" + item + "\" has no name (expected name[:type][:no_consume][:count])"};
    gres.count = 1;
    std::size_t last = fields.size();
    if (last > 1 && looksLikeCount(fields[last - 1])) {
      auto count = parseCount(fields[last - 1]);
      if (!count) return Error{"GRES item \"" + item + "\": count " + count.error()};
      gres.count = count.value();
      --last;
    }
    for (std::size_t i = 1; i < last; ++i) {
      if (iequals(fields[i], "no_consume")) {
        gres.noConsume = true;
      } else if (gres.type.empty() && !gres.noConsume && !fields[i].empty()) {
        gres.type = fields[i];
      } else {
        return Error{"GRES item \"" + item + "\" has an unexpected field \"" + fields[i] +
                     "\" (expected name[:type][:no_consume][:count])"};
      }
    }
    out.push_back(std::move(gres));
  }
  return out;
}

std::string formatGresCount(const GresCount& gres) {
  std::string out = gres.name;
  if (!gres.type.empty()) out += ":" + gres.type;
  if (gres.noConsume) out += ":no_consume";
  return out + ":" + std::to_string(gres.count);
}

Result<std::vector<TresLimit>> parseTresLimits(std::string_view text) {
  std::vector<TresLimit> out;
  for (const std::string& item : splitList(text)) {
    std::size_t colon = item.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      return Error{"\"" + item + "\" is not a TRES limit (expected name:count, e.g. gres/gpu:2 or mem:8192)"};
    }
    std::string tres = item.substr(0, colon);
    std::string countText = item.substr(colon + 1);
    auto count = iequals(tres, "mem") ? parseSizeMb(countText) : parseCount(countText);
    if (!count) return Error{"TRES limit \"" + item + "\": " + count.error()};
    bool known = iequals(tres, "cpu") || iequals(tres, "mem") || toLower(tres).rfind("gres/", 0) == 0;
    if (!known) return Error{"TRES limit \"" + item + "\" names \"" + tres + "\"; only cpu, mem and gres/NAME[:TYPE] can be drained"};
    out.push_back(TresLimit{tres, count.value()});
  }
  return out;
}

}  // namespace gantry::config
