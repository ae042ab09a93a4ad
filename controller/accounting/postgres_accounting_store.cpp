#include "controller/accounting/postgres_accounting_store.h"

#include "controller/accounting/accounting_sql.h"
#include "controller/accounting/postgres_rows.h"
#include "controller/accounting/postgres_session.h"

namespace gantry::accounting {
namespace {

using detail::PostgresSession;

constexpr const char* kPutJob = "put_job";
constexpr const char* kPutEvent = "put_event";
// Held while a store checks and creates the schema, so that two stores
// opening one database at once do not both create the tables (PostgreSQL's
// CREATE ... IF NOT EXISTS may fail when two run together). Any constant
// will do; this one reads "gantry accounting".
constexpr int64_t kSchemaLock = 0x67616e7472794163;

// Runs `select` on the read session and turns each row into a record. A
// broken connection is made again and the query tried once more: the server
// may have restarted since the last query.
template <typename Record, typename Read>
Result<std::vector<Record>> readAll(PostgresSession& session, const sql::BoundQuery& select, const char* table,
                                    Read read) {
  std::string statement = sql::numberedPlaceholders(select.text);
  detail::Params params = detail::queryParams(select);
  Error last{ErrorCode::Internal, ""};
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (auto status = session.connect(); !status) return status.failure();
    try {
      pqxx::read_transaction transaction(session.connection());
      pqxx::result rows = detail::execParams(transaction, statement, params);
      std::vector<Record> records;
      records.reserve(rows.size());
      for (const auto& row : rows) records.push_back(read(row));
      return records;
    } catch (const pqxx::broken_connection& error) {
      last = session.failure(error, std::string("reading table ") + table);
    } catch (const std::exception& error) {
      return session.failure(error, std::string("reading table ") + table);
    }
  }
  return last;
}

}  // namespace

PostgresAccountingStore::PostgresAccountingStore(const AccountingConnection& where)
    : writeSession_(std::make_unique<PostgresSession>(
          where, PostgresSession::Prepared{{kPutJob, sql::numberedPlaceholders(sql::kPutJob)},
                                           {kPutEvent, sql::numberedPlaceholders(sql::kPutEvent)}})),
      readSession_(std::make_unique<PostgresSession>(where)),
      writer_([this](const std::vector<AccountingWrite>& batch) { return writeBatch(batch); }) {}

PostgresAccountingStore::~PostgresAccountingStore() { close(); }

Result<std::unique_ptr<PostgresAccountingStore>> PostgresAccountingStore::open(const AccountingConnection& where) {
  std::unique_ptr<PostgresAccountingStore> store(new PostgresAccountingStore(where));
  if (auto status = store->writeSession_->connect(); !status) return status.failure();
  if (auto status = store->prepareSchema(); !status) return status.failure();
  if (auto status = store->readSession_->connect(); !status) return status.failure();
  {
    std::lock_guard lock(store->readMutex_);
    store->open_ = true;
  }
  store->writer_.start();
  return store;
}

Status PostgresAccountingStore::prepareSchema() {
  PostgresSession& session = *writeSession_;
  try {
    pqxx::work transaction(session.connection());
    transaction.exec_params("SELECT pg_advisory_xact_lock($1)", kSchemaLock);
    pqxx::row hasMeta = transaction.exec1("SELECT to_regclass('meta') IS NOT NULL");
    if (hasMeta[0].as<bool>()) {
      pqxx::result version = transaction.exec(sql::kReadSchemaVersion);
      if (!version.empty() && version[0][0].as<int64_t>() > sql::kSchemaVersion) {
        return Error{ErrorCode::Internal, session.name() + " has schema version " + version[0][0].c_str() +
                                              ", newer than this Gantry's " + std::to_string(sql::kSchemaVersion)};
      }
    }
    for (const char* statement : sql::schema()) transaction.exec(statement);
    transaction.exec_params(sql::numberedPlaceholders(sql::kWriteSchemaVersion), sql::kSchemaVersion);
    transaction.commit();
    return okStatus();
  } catch (const std::exception& error) {
    return session.failure(error, "creating the tables");
  }
}

Status PostgresAccountingStore::queueWrite(AccountingWrite write, Callback done) {
  if (!writer_.enqueue(std::move(write), std::move(done))) {
    return Error{ErrorCode::Internal, "the accounting database is not open"};
  }
  return okStatus();
}

void PostgresAccountingStore::flush() { writer_.flush(); }

void PostgresAccountingStore::close() {
  writer_.stop();
  std::lock_guard lock(readMutex_);
  open_ = false;
}

Status PostgresAccountingStore::writeBatch(const std::vector<AccountingWrite>& batch) {
  PostgresSession& session = *writeSession_;
  if (auto status = session.connect(); !status) return status;
  const char* doing = "writing job records";
  try {
    pqxx::work transaction(session.connection());
    for (const auto& write : batch) {
      doing = "writing job records";
      for (const auto& record : write.jobs) detail::execPrepared(transaction, kPutJob, detail::jobParams(record));
      doing = "writing node events";
      for (const auto& event : write.events) detail::execPrepared(transaction, kPutEvent, detail::eventParams(event));
    }
    doing = "the records";
    transaction.commit();
  } catch (const std::exception& error) {
    return session.failure(error, doing);
  }
  ++transactions_;
  return okStatus();
}

Result<std::vector<JobRecord>> PostgresAccountingStore::readJobs(const JobQuery& query) const {
  sql::BoundQuery select = sql::selectJobs(query);
  std::lock_guard lock(readMutex_);
  if (!open_) return Error{ErrorCode::Internal, "the accounting database is not open"};
  return readAll<JobRecord>(*readSession_, select, "job_records", detail::readJob);
}

Result<std::vector<NodeEvent>> PostgresAccountingStore::readEvents(const EventQuery& query) const {
  sql::BoundQuery select = sql::selectEvents(query);
  std::lock_guard lock(readMutex_);
  if (!open_) return Error{ErrorCode::Internal, "the accounting database is not open"};
  return readAll<NodeEvent>(*readSession_, select, "node_events", detail::readEvent);
}

}  // namespace gantry::accounting
