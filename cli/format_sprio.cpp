#include "cli/format_sprio.h"

#include <cmath>
#include <cstdio>
#include <functional>

#include "cli/array_ids.h"

namespace gantry::cli {
namespace {

using gantry::v1::Job;

struct SprioField {
  const char* code;
  const char* header;
  std::function<std::string(const Job&)> value;
  // The weight shown by -w (nullptr: the column has none).
  uint64_t PriorityWeightsShown::*weight = nullptr;
};

std::string whole(double value) { return std::to_string(static_cast<long long>(std::llround(value))); }

std::string fraction(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.7f", value);
  return text;
}

const std::vector<SprioField>& fields() {
  static const std::vector<SprioField> table = {
      {"i", "JOBID", [](const Job& j) { return arrayJobIdText(j); }},
      {"r", "PARTITION", [](const Job& j) { return j.spec().partition(); }},
      {"u", "USER", [](const Job& j) { return j.user(); }},
      {"o", "ACCOUNT", [](const Job& j) { return j.spec().account(); }},
      {"Y", "PRIORITY", [](const Job& j) { return std::to_string(j.priority()); }},
      {"y", "PRIORITY", [](const Job& j) { return fraction(static_cast<double>(j.priority()) / 4294967295.0); }},
      // Gantry has no site factor, association priority, QOS or TRES weights: 0.
      {"S", "SITE", [](const Job&) { return std::string("0"); }},
      {"A", "AGE", [](const Job& j) { return whole(j.priority_factors().age()); }, &PriorityWeightsShown::age},
      {"a", "AGE", [](const Job& j) { return fraction(j.priority_factors().normalized().age()); },
       &PriorityWeightsShown::age},
      {"B", "ASSOC", [](const Job&) { return std::string("0"); }},
      {"b", "ASSOC", [](const Job&) { return fraction(0); }},
      {"F", "FAIRSHARE", [](const Job& j) { return whole(j.priority_factors().fairshare()); },
       &PriorityWeightsShown::fairshare},
      {"f", "FAIRSHARE", [](const Job& j) { return fraction(j.priority_factors().normalized().fairshare()); },
       &PriorityWeightsShown::fairshare},
      {"J", "JOBSIZE", [](const Job& j) { return whole(j.priority_factors().job_size()); },
       &PriorityWeightsShown::jobSize},
      {"j", "JOBSIZE", [](const Job& j) { return fraction(j.priority_factors().normalized().job_size()); },
       &PriorityWeightsShown::jobSize},
      {"P", "PARTITION", [](const Job& j) { return whole(j.priority_factors().partition()); },
       &PriorityWeightsShown::partition},
      {"p", "PARTITION", [](const Job& j) { return fraction(j.priority_factors().normalized().partition()); },
       &PriorityWeightsShown::partition},
      {"n", "QOSNAME", [](const Job&) { return std::string(); }},
      {"Q", "QOS", [](const Job&) { return std::string("0"); }, &PriorityWeightsShown::qos},
      {"q", "QOS", [](const Job&) { return fraction(0); }, &PriorityWeightsShown::qos},
      {"N", "NICE", [](const Job& j) { return std::to_string(j.spec().nice()); }},
      {"T", "TRES", [](const Job&) { return std::string(); }},
      {"t", "TRES", [](const Job&) { return std::string(); }},
  };
  return table;
}

const SprioField* find(const std::string& code) {
  for (const auto& field : fields()) {
    if (code == field.code) return &field;
  }
  return nullptr;
}

}  // namespace

LineFormat defaultSprioFormat(const PriorityWeightsShown& weights, bool normalized, bool withUser, bool longList) {
  std::string format;
  if (longList) {
    format = normalized ? "%.15i %9r %.8u %.8o %10y %10a %10b %10f %10j %10p %10n %10q %20t"
                        : "%.15i %9r %.8u %.8o %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10n %.10Q %.11N %.20T";
  } else {
    format = "%.15i %9r";
    if (withUser) format += " %.8u";
    format += normalized ? " %10y" : " %.10Y %.10S";
    // A factor's column only when its weight counts, as Slurm's sprio.
    auto add = [&](uint64_t weight, const char* weighted, const char* plain) {
      if (weight != 0) format += normalized ? std::string(" %10") + plain : std::string(" %.10") + weighted;
    };
    add(weights.age, "A", "a");
    add(weights.fairshare, "F", "f");
    add(weights.jobSize, "J", "j");
    add(weights.partition, "P", "p");
    add(weights.qos, "Q", "q");
  }
  return parseSprioFormat(format).value();
}

Result<LineFormat> parseSprioFormat(const std::string& format) {
  return parsePercentFormat(
      format, [](const std::string& code) { return find(code) != nullptr; }, "-o/--format");
}

std::vector<ColumnName> sprioColumns() {
  std::vector<ColumnName> columns;
  for (const auto& field : fields()) columns.push_back({field.code, "", field.header});
  return columns;
}

std::string renderSprio(const LineFormat& format, const std::vector<Job>& jobs, bool header) {
  return renderTable<Job>(
      format, jobs, header, [](const std::string& key) { return std::string(find(key)->header); },
      [](const std::string& key, const Job& job) { return find(key)->value(job); });
}

std::string renderSprioWeights(const LineFormat& format, const PriorityWeightsShown& weights, bool header) {
  struct WeightsRow {};
  return renderTable<WeightsRow>(
      format, {WeightsRow{}}, header, [](const std::string& key) { return std::string(find(key)->header); },
      [&weights](const std::string& key, const WeightsRow&) {
        const SprioField* field = find(key);
        if (key == "i") return std::string("Weights");
        if (field->weight == nullptr) return std::string();
        return std::to_string(weights.*(field->weight));
      });
}

}  // namespace gantry::cli
