#include "cli/json_render.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/util/json_util.h>

#include "cli/help_flags.h"

namespace gantry::cli {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

bool isWideInteger(const FieldDescriptor* field) {
  auto type = field->cpp_type();
  return type == FieldDescriptor::CPPTYPE_INT64 || type == FieldDescriptor::CPPTYPE_UINT64;
}

nlohmann::json numberFromText(const nlohmann::json& value, bool isSigned) {
  if (!value.is_string()) return value;
  const std::string& text = value.get_ref<const std::string&>();
  try {
    if (isSigned) return nlohmann::json(std::stoll(text));
    return nlohmann::json(std::stoull(text));
  } catch (const std::exception&) {
    return value;
  }
}

// Protobuf's JSON writes 64-bit integers as strings; scripts reading
// job ids and times expect numbers, so turn them back, following the
// message's descriptor into nested messages.
void restoreWideIntegers(const Descriptor* descriptor, nlohmann::json& object) {
  if (!object.is_object()) return;
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    auto found = object.find(field->name());
    if (found == object.end() || field->is_map()) continue;
    bool isSigned = field->cpp_type() == FieldDescriptor::CPPTYPE_INT64;
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (auto& item : *found) restoreWideIntegers(field->message_type(), item);
      } else {
        restoreWideIntegers(field->message_type(), *found);
      }
    } else if (isWideInteger(field)) {
      if (field->is_repeated()) {
        for (auto& item : *found) item = numberFromText(item, isSigned);
      } else {
        *found = numberFromText(*found, isSigned);
      }
    }
  }
}

}  // namespace

nlohmann::json messageToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string text;
  auto status = google::protobuf::util::MessageToJsonString(message, &text, options);
  if (!status.ok()) return nlohmann::json{{"error", std::string(status.message())}};
  nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
  restoreWideIntegers(message.GetDescriptor(), value);
  return value;
}

nlohmann::json withEnvelope(nlohmann::json content, const JsonMeta& meta) {
  // The numbers of the release the commands follow, as Slurm splits them.
  std::string release = kSlurmVersion;
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = release.find('.', start);
    parts.push_back(release.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  parts.resize(3);
  content["meta"] = {
      {"plugin", {{"type", ""}, {"name", ""}, {"data_parser", kDataParser},
                  {"accounting_storage", meta.accountingStorage}}},
      {"client", {{"source", meta.source}, {"user", meta.user}, {"group", meta.group}}},
      {"command", meta.command},
      {"slurm", {{"version", {{"major", parts[0]}, {"minor", parts[1]}, {"micro", parts[2]}}},
                 {"release", release},
                 {"cluster", meta.cluster}}}};
  content["errors"] = nlohmann::json::array();
  content["warnings"] = nlohmann::json::array();
  return content;
}

std::string dumpJson(const nlohmann::json& value) { return value.dump(2) + "\n"; }

}  // namespace gantry::cli
