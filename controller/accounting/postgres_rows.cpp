#include "controller/accounting/postgres_rows.h"

namespace gantry::accounting::detail {
namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the valid UTF-8 sequence at `at`, 0 when there is none.
size_t utf8Length(const std::string& text, size_t at) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(at);
  if (lead >= 0x01 && lead <= 0x7F) return 1;
  size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;  // NUL, a continuation byte, or a lead no encoding uses
  }
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return 0;
  }
  return length;
}

class ParamsBuilder {
 public:
  ParamsBuilder& text(const std::string& value) {
    params_.emplace_back(storableText(value));
    return *this;
  }
  ParamsBuilder& integer(int64_t value) {
    params_.emplace_back(std::to_string(value));
    return *this;
  }
  template <typename T>
  ParamsBuilder& optional(const std::optional<T>& value) {
    if (value) return integer(static_cast<int64_t>(*value));
    params_.emplace_back(std::nullopt);
    return *this;
  }
  Params take() { return std::move(params_); }

 private:
  Params params_;
};

// Reads consecutive fields.
class FieldReader {
 public:
  explicit FieldReader(const pqxx::row& row) : row_(row) {}
  std::string text() {
    const pqxx::field field = row_[next_++];
    return field.is_null() ? std::string() : std::string(field.c_str(), field.size());
  }
  int64_t integer() {
    const pqxx::field field = row_[next_++];
    return field.is_null() ? 0 : field.as<int64_t>();
  }
  template <typename T>
  std::optional<T> optional() {
    const pqxx::field field = row_[next_++];
    if (field.is_null()) return std::nullopt;
    return static_cast<T>(field.as<int64_t>());
  }

 private:
  const pqxx::row& row_;
  pqxx::row::size_type next_ = 0;
};

// libpqxx takes C strings, a null pointer for NULL.
std::vector<const char*> pointers(const Params& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& param : params) values.push_back(param ? param->c_str() : nullptr);
  return values;
}

}  // namespace

std::string storableText(const std::string& text) {
  std::string stored;
  for (size_t at = 0; at < text.size();) {
    size_t length = utf8Length(text, at);
    if (length == 0) {
      stored += kReplacement;
      ++at;
    } else {
      stored.append(text, at, length);
      at += length;
    }
  }
  return stored;
}

Params jobParams(const JobRecord& r) {
  return ParamsBuilder()
      .text(r.cluster)
      .integer(static_cast<int64_t>(r.jobId))
      .text(r.stepId)
      .integer(r.submitTime)
      .text(r.name)
      .text(r.user)
      .integer(r.uid)
      .text(r.group)
      .integer(r.gid)
      .text(r.account)
      .text(r.partition)
      .integer(r.eligibleTime)
      .integer(r.startTime)
      .integer(r.endTime)
      .optional(r.timeLimitMinutes)
      .text(r.state)
      .optional(r.cancelledByUid)
      .integer(r.exitCode.code)
      .integer(r.exitCode.signal)
      .integer(r.derivedExitCode.code)
      .integer(r.derivedExitCode.signal)
      .integer(r.nodeCount)
      .text(r.nodeList)
      .integer(r.allocCpus)
      .text(r.reqTres)
      .text(r.allocTres)
      .text(r.usageIn.min)
      .text(r.usageIn.minNode)
      .text(r.usageIn.minTask)
      .text(r.usageIn.max)
      .text(r.usageIn.maxNode)
      .text(r.usageIn.maxTask)
      .text(r.usageIn.ave)
      .text(r.usageIn.tot)
      .text(r.reason)
      .text(r.workDir)
      .text(r.comment)
      .integer(sql::jobProgress(r.startTime, r.endTime))
      .integer(sql::windowEnd(r.endTime))
      .take();
}

Params eventParams(const NodeEvent& e) {
  return ParamsBuilder()
      .text(e.cluster)
      .text(e.node)
      .integer(e.startTime)
      .integer(e.endTime)
      .text(e.state)
      .text(e.reason)
      .text(e.user)
      .text(e.tres)
      .text(e.tresReference)
      .take();
}

Params queryParams(const sql::BoundQuery& query) {
  ParamsBuilder builder;
  for (const auto& value : query.binds) {
    if (const auto* number = std::get_if<int64_t>(&value)) builder.integer(*number);
    else builder.text(std::get<std::string>(value));
  }
  return builder.take();
}

pqxx::result execPrepared(pqxx::transaction_base& transaction, const std::string& name, const Params& params) {
  auto values = pointers(params);
  return transaction.exec_prepared(name, pqxx::prepare::make_dynamic_params(values));
}

pqxx::result execParams(pqxx::transaction_base& transaction, const std::string& statement, const Params& params) {
  auto values = pointers(params);
  return transaction.exec_params(statement, pqxx::prepare::make_dynamic_params(values));
}

JobRecord readJob(const pqxx::row& row) {
  FieldReader field(row);
  JobRecord r;
  r.cluster = field.text();
  r.jobId = static_cast<uint64_t>(field.integer());
  r.stepId = field.text();
  r.submitTime = field.integer();
  r.name = field.text();
  r.user = field.text();
  r.uid = static_cast<uint32_t>(field.integer());
  r.group = field.text();
  r.gid = static_cast<uint32_t>(field.integer());
  r.account = field.text();
  r.partition = field.text();
  r.eligibleTime = field.integer();
  r.startTime = field.integer();
  r.endTime = field.integer();
  r.timeLimitMinutes = field.optional<uint32_t>();
  r.state = field.text();
  r.cancelledByUid = field.optional<uint32_t>();
  r.exitCode.code = static_cast<int>(field.integer());
  r.exitCode.signal = static_cast<int>(field.integer());
  r.derivedExitCode.code = static_cast<int>(field.integer());
  r.derivedExitCode.signal = static_cast<int>(field.integer());
  r.nodeCount = static_cast<uint32_t>(field.integer());
  r.nodeList = field.text();
  r.allocCpus = static_cast<uint32_t>(field.integer());
  r.reqTres = field.text();
  r.allocTres = field.text();
  r.usageIn.min = field.text();
  r.usageIn.minNode = field.text();
  r.usageIn.minTask = field.text();
  r.usageIn.max = field.text();
  r.usageIn.maxNode = field.text();
  r.usageIn.maxTask = field.text();
  r.usageIn.ave = field.text();
  r.usageIn.tot = field.text();
  r.reason = field.text();
  r.workDir = field.text();
  r.comment = field.text();
  return r;
}

NodeEvent readEvent(const pqxx::row& row) {
  FieldReader field(row);
  NodeEvent e;
  e.cluster = field.text();
  e.node = field.text();
  e.startTime = field.integer();
  e.endTime = field.integer();
  e.state = field.text();
  e.reason = field.text();
  e.user = field.text();
  e.tres = field.text();
  e.tresReference = field.text();
  return e;
}

}  // namespace gantry::accounting::detail
