#include "common/config/shared_gres.h"

#include "common/config/value_parse.h"

namespace gantry::config {
namespace {

std::vector<uint64_t> evenSplit(uint64_t total, std::size_t parts) {
  std::vector<uint64_t> counts(parts, 0);
  if (parts == 0) return counts;
  for (std::size_t i = 0; i < parts; ++i) counts[i] = total / parts + (i < total % parts ? 1 : 0);
  return counts;
}

std::string_view formName(SharedGresForm form) {
  switch (form) {
    case SharedGresForm::NoLine: return "no line";
    case SharedGresForm::NodeTotal: return "Name+Count";
    case SharedGresForm::PerFile: return "Name+File+Count";
    case SharedGresForm::PerType: return "Name+Type+Count";
  }
  return "";
}

}  // namespace

Result<SharedGresPlan> planSharedGres(const GresConf& conf, std::string_view name) {
  SharedGresPlan plan;
  plan.name = std::string(name);
  const GresRecord* firstLine = nullptr;
  for (const GresRecord* r : conf.recordsNamed(name)) {
    SharedGresForm form = !r->files.empty()   ? SharedGresForm::PerFile
                          : !r->type.empty()  ? SharedGresForm::PerType
                                              : SharedGresForm::NodeTotal;
    if (firstLine && form != plan.form) {
      return Error{r->sourceFile + ":" + std::to_string(r->sourceLine) + ": Name=" + std::string(name) + " uses the " +
                   std::string(formName(form)) + " form while line " + std::to_string(firstLine->sourceLine) +
                   " uses the " + std::string(formName(plan.form)) + " form; use one form per node"};
    }
    if (!firstLine) firstLine = r;
    plan.form = form;
    uint64_t count = r->count.value_or(0);
    switch (form) {
      case SharedGresForm::PerFile:
        for (const auto& file : r->files) plan.perFile[file] += r->files.size() > 1 ? count / r->files.size() : count;
        break;
      case SharedGresForm::PerType: plan.perType.emplace_back(r->type, count); break;
      case SharedGresForm::NodeTotal: plan.nodeTotal += count; break;
      case SharedGresForm::NoLine: break;
    }
  }
  return plan;
}

std::vector<uint64_t> resolveSharedCounts(const SharedGresPlan& plan, const std::vector<GpuRef>& gpus,
                                          uint64_t configuredTotal) {
  switch (plan.form) {
    case SharedGresForm::NoLine: return evenSplit(configuredTotal, gpus.size());
    case SharedGresForm::NodeTotal: return evenSplit(plan.nodeTotal, gpus.size());
    case SharedGresForm::PerFile: {
      std::vector<uint64_t> counts;
      for (const auto& gpu : gpus) {
        auto it = plan.perFile.find(gpu.file);
        counts.push_back(it == plan.perFile.end() ? 0 : it->second);
      }
      return counts;
    }
    case SharedGresForm::PerType: {
      std::vector<uint64_t> counts;
      for (const auto& gpu : gpus) {
        std::size_t bestLength = 0;
        uint64_t best = 0;
        for (const auto& [type, count] : plan.perType) {
          if (type.size() > bestLength && icontains(gpu.type, type)) {
            bestLength = type.size();
            best = count;
          }
        }
        counts.push_back(best);
      }
      return counts;
    }
  }
  return {};
}

}  // namespace gantry::config
