#include "controller/accounting/postgres_rows.h"

#include "controller/accounting/record_fields.h"

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

Params jobParams(const JobRecord& record) {
  ParamsBuilder builder;
  writeJobFields(builder, record);
  return builder.take();
}

Params eventParams(const NodeEvent& event) {
  ParamsBuilder builder;
  writeEventFields(builder, event);
  return builder.take();
}

Params queryParams(const sql::BoundQuery& query) {
  ParamsBuilder builder;
  writeQueryFields(builder, query);
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
  return readJobFields(field);
}

NodeEvent readEvent(const pqxx::row& row) {
  FieldReader field(row);
  return readEventFields(field);
}

}  // namespace gantry::accounting::detail
