#include "controller/accounting/postgres_accounting_store.h"

#include <algorithm>
#include <iterator>

#include "controller/accounting/accounting_sql.h"
#include "controller/accounting/postgres_rows.h"
#include "controller/accounting/postgres_session.h"
#include "controller/accounting/write_collapse.h"

namespace gantry::accounting {
namespace {

using detail::PostgresSession;

// Rows go to the server many to a statement, since a round trip per row
// would bound ingest by the network's latency. A statement of this many
// rows is prepared; the rest of a batch goes in one more.
constexpr size_t kRowsPerStatement = 64;
constexpr const char* kPutJobs = "put_jobs";
constexpr const char* kPutEvents = "put_events";
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

// Writes `records` (one per key: write_collapse.h) up to kRowsPerStatement
// rows a statement.
template <typename Record, typename ToParams>
void writeRows(pqxx::transaction_base& transaction, const std::vector<const Record*>& records, const char* prepared,
               const char* put, ToParams toParams) {
  for (size_t begin = 0; begin < records.size(); begin += kRowsPerStatement) {
    size_t count = std::min(kRowsPerStatement, records.size() - begin);
    detail::Params params;
    for (size_t i = 0; i < count; ++i) {
      detail::Params row = toParams(*records[begin + i]);
      params.insert(params.end(), std::make_move_iterator(row.begin()), std::make_move_iterator(row.end()));
    }
    if (count == kRowsPerStatement) detail::execPrepared(transaction, prepared, params);
    else detail::execParams(transaction, sql::numberedPlaceholders(sql::withRows(put, count)), params);
  }
}

}  // namespace

PostgresAccountingStore::PostgresAccountingStore(const AccountingConnection& where)
    : writeSession_(std::make_unique<PostgresSession>(
          where,
          PostgresSession::Prepared{
              {kPutJobs, sql::numberedPlaceholders(sql::withRows(sql::kPutJob, kRowsPerStatement))},
              {kPutEvents, sql::numberedPlaceholders(sql::withRows(sql::kPutEvent, kRowsPerStatement))}})),
      readSession_(std::make_unique<PostgresSession>(where)),
      writer_([this](const std::vector<AccountingWrite>& batch) { return writeBatch(batch); }, kAccountingGatherWindow) {}

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
    int64_t stored = 0;
    if (hasMeta[0].as<bool>()) {
      pqxx::result version = transaction.exec(sql::kReadSchemaVersion);
      if (!version.empty()) stored = version[0][0].as<int64_t>();
      if (stored > sql::kSchemaVersion) {
        return Error{ErrorCode::Internal, session.name() + " has schema version " + std::to_string(stored) +
                                              ", newer than this Gantry's " + std::to_string(sql::kSchemaVersion)};
      }
    }
    // One transaction: a database is never left half migrated.
    for (const char* statement : sql::schema()) transaction.exec(statement);
    for (const char* statement : sql::migrations(stored)) transaction.exec(statement);
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
  writeSession_->disconnect();  // the writer thread has ended
  std::lock_guard lock(readMutex_);
  open_ = false;
  readSession_->disconnect();
}

Status PostgresAccountingStore::writeBatch(const std::vector<AccountingWrite>& batch) {
  PostgresSession& session = *writeSession_;
  if (auto status = session.connect(); !status) return status;
  std::vector<const JobRecord*> jobs;
  std::vector<const NodeEvent*> events;
  for (const auto& write : batch) {
    for (const auto& record : write.jobs) jobs.push_back(&record);
    for (const auto& event : write.events) events.push_back(&event);
  }
  const char* doing = "writing job records";
  try {
    pqxx::work transaction(session.connection());
    writeRows(transaction, collapseJobs(jobs), kPutJobs, sql::kPutJob, detail::jobParams);
    doing = "writing node events";
    writeRows(transaction, collapseEvents(events), kPutEvents, sql::kPutEvent, detail::eventParams);
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
