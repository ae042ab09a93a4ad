#include "controller/accounting/postgres_session.h"

namespace gantry::accounting::detail {
namespace {

// A value in libpq's keyword='value' syntax.
std::string quoted(const std::string& value) {
  std::string text = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') text += '\\';
    text += c;
  }
  return text + "'";
}

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

}  // namespace

PostgresSession::PostgresSession(AccountingConnection where, Prepared prepared)
    : where_(std::move(where)), prepared_(std::move(prepared)), name_("accounting database " + describe(where_)) {}

std::string PostgresSession::connectionString() const {
  std::string text;
  auto add = [&](const char* key, const std::string& value) {
    if (!value.empty()) text += std::string(text.empty() ? "" : " ") + key + "=" + quoted(value);
  };
  add("host", where_.host);
  add("port", std::to_string(where_.port));
  add("dbname", where_.database);
  add("user", where_.user);
  add("password", where_.password);
  add("application_name", "gantryctld");
  add("client_encoding", "UTF8");
  // A dead peer must fail the writer, not hang it: bounded connects, and
  // TCP keepalives and a user timeout on an established connection.
  add("connect_timeout", "10");
  add("keepalives", "1");
  add("keepalives_idle", "30");
  add("keepalives_interval", "10");
  add("keepalives_count", "3");
  add("tcp_user_timeout", "60000");
  // COMMIT returns once the transaction is on disk, whatever the server's
  // default; and CREATE ... IF NOT EXISTS notices stay off our stderr.
  add("options", "-c synchronous_commit=on -c client_min_messages=warning");
  return text;
}

// libpq's messages span lines ("...failed: Connection refused\n\tIs the
// server running..."); a log line wants one. The password is never in them,
// but it is taken out all the same should a server echo it.
std::string PostgresSession::oneLine(const std::string& text) const {
  std::string line;
  for (char c : text) {
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
    if (c == ' ' && (line.empty() || line.back() == ' ')) continue;
    line += c;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  const std::string& secret = where_.password;
  if (secret.size() >= 4) {
    for (size_t at; (at = line.find(secret)) != std::string::npos;) line.replace(at, secret.size(), "***");
  }
  return line;
}

Status PostgresSession::connect() {
  if (connection_ && connection_->is_open()) return okStatus();
  connection_.reset();
  try {
    auto connection = std::make_unique<pqxx::connection>(connectionString());
    for (const auto& [name, sql] : prepared_) connection->prepare(name, sql);
    connection_ = std::move(connection);
    return okStatus();
  } catch (const pqxx::broken_connection& error) {
    std::string text = oneLine(error.what());
    if (contains(text, "authentication failed") || contains(text, "no password supplied")) {
      return Error{ErrorCode::Internal, name_ + ": authentication failed for user " +
                                            (where_.user.empty() ? std::string("(default)") : where_.user) + ": " +
                                            text};
    }
    if (contains(text, "does not exist") && contains(text, "database")) {
      return Error{ErrorCode::Internal, name_ + ": no such database: " + text};
    }
    return Error{ErrorCode::Unavailable, name_ + ": cannot connect: " + text};
  } catch (const std::exception& error) {
    return Error{ErrorCode::Internal, name_ + ": cannot connect: " + oneLine(error.what())};
  }
}

Error PostgresSession::failure(const std::exception& error, const std::string& what) {
  std::string text = oneLine(error.what());
  if (dynamic_cast<const pqxx::in_doubt_error*>(&error) != nullptr) {
    connection_.reset();
    return Error{ErrorCode::Unavailable, name_ + ": the connection was lost during COMMIT of " + what +
                                             "; the records may or may not be stored (delivering them again is "
                                             "safe): " + text};
  }
  if (dynamic_cast<const pqxx::broken_connection*>(&error) != nullptr || !connection_ || !connection_->is_open()) {
    connection_.reset();
    return Error{ErrorCode::Unavailable, name_ + ": lost the connection while " + what + ": " + text};
  }
  return Error{ErrorCode::Internal, name_ + ": " + what + ": " + text};
}

}  // namespace gantry::accounting::detail
