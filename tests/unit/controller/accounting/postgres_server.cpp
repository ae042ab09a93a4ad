#include "tests/unit/controller/accounting/postgres_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pqxx/pqxx>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "common/util/process.h"

namespace gantry::accounting::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSuperuser = "gantry";
constexpr const char* kPassword = "gantry-test-password";
constexpr int kStartTries = 3;

// A port nobody listens on now. Another process may take it before the
// server binds it; start() then tries another.
int freeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
}

std::string adminConnectionString(int port, const std::string& database) {
  return "host=127.0.0.1 port=" + std::to_string(port) + " user=" + kSuperuser + " password=" + kPassword +
         " dbname=" + database + " options='-c client_min_messages=warning'";
}

}  // namespace

fs::path PostgresTestServer::programsFolder() {
  auto hasPrograms = [](const fs::path& folder) {
    return fs::exists(folder / "initdb") && fs::exists(folder / "pg_ctl");
  };
  if (const char* named = std::getenv("GANTRY_POSTGRES_BINDIR"); named != nullptr && *named != '\0') {
    return hasPrograms(named) ? fs::path(named) : fs::path();
  }
  std::error_code error;
  std::vector<std::pair<int, fs::path>> found;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", error)) {
    fs::path bin = entry.path() / "bin";
    int version = std::atoi(entry.path().filename().c_str());
    if (hasPrograms(bin)) found.emplace_back(version, bin);
  }
  if (found.empty()) return {};
  return std::max_element(found.begin(), found.end())->second;
}

Result<std::unique_ptr<PostgresTestServer>> PostgresTestServer::start(Options options) {
  std::unique_ptr<PostgresTestServer> server(new PostgresTestServer());
  server->programs_ = programsFolder();
  if (server->programs_.empty()) {
    return Error{"PostgreSQL's server programs (initdb, pg_ctl) are not installed "
                 "(looked under /usr/lib/postgresql/*/bin and GANTRY_POSTGRES_BINDIR)"};
  }
  server->durable_ = options.durable;
  std::string pattern = (fs::temp_directory_path() / "gantry-postgres-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return Error{"cannot make a temporary folder for PostgreSQL"};
  server->folder_ = pattern;
  if (::geteuid() == 0) {
    const passwd* nobody = ::getpwnam("nobody");
    if (nobody == nullptr) return Error{"running as root, and there is no user nobody to run PostgreSQL as"};
    server->asNobody_ = true;
    server->uid_ = nobody->pw_uid;
    server->gid_ = nobody->pw_gid;
    if (::chown(server->folder_.c_str(), server->uid_, server->gid_) != 0) {
      return Error{"cannot give " + server->folder_.string() + " to nobody"};
    }
  }
  fs::path passwordFile = server->folder_ / "password";
  std::ofstream(passwordFile) << kPassword << "\n";
  if (server->asNobody_ && ::chown(passwordFile.c_str(), server->uid_, server->gid_) != 0) {
    return Error{"cannot give " + passwordFile.string() + " to nobody"};
  }
  auto initdb = server->run({(server->programs_ / "initdb").string(), "-D", (server->folder_ / "data").string(),
                             "-U", kSuperuser, "--pwfile=" + passwordFile.string(), "--auth-local=trust",
                             "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync"},
                            "initdb.log");
  if (!initdb) return initdb.failure();
  Status started = Error{"not tried"};
  for (int attempt = 0; attempt < kStartTries && !started; ++attempt) {
    server->port_ = freeLoopbackPort();
    started = server->restart();
  }
  if (!started) return started.failure();
  return server;
}

PostgresTestServer::~PostgresTestServer() {
  if (running_) (void)killNow();
  std::error_code ignored;
  if (!folder_.empty()) fs::remove_all(folder_, ignored);
}

Status PostgresTestServer::run(const std::vector<std::string>& argv, const std::string& log) const {
  ProcessSpec spec;
  spec.argv = argv;
  spec.environment = {"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=" + folder_.string()};
  spec.workDir = folder_;
  if (asNobody_) spec.runAs = RunAs{.uid = uid_, .gid = gid_};
  spec.stdoutTo = OutputTarget::appendTo(folder_ / log);
  spec.stderrTo = OutputTarget::sameAsStdout();
  spec.timeout = std::chrono::seconds(60);
  ProcessOutcome outcome = runProcessAndWait(std::move(spec));
  if (outcome.succeeded()) return okStatus();
  return Error{fs::path(argv[0]).filename().string() + " failed (" + describeOutcome(outcome) + "): " + logTail(log)};
}

std::string PostgresTestServer::logTail(const std::string& log) const {
  std::ifstream in(folder_ / log);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  constexpr size_t kTail = 1500;
  return text.size() > kTail ? text.substr(text.size() - kTail) : text;
}

AccountingConnection PostgresTestServer::connection(const std::string& database) const {
  return AccountingConnection{.backend = AccountingConnection::Backend::Postgresql,
                              .path = {},
                              .host = "127.0.0.1",
                              .port = port_,
                              .user = kSuperuser,
                              .password = kPassword,
                              .database = database};
}

Status PostgresTestServer::freshDatabase(const std::string& database) {
  try {
    {
      pqxx::connection admin(adminConnectionString(port_, "postgres"));
      pqxx::nontransaction transaction(admin);
      if (transaction.exec_params("SELECT 1 FROM pg_database WHERE datname = $1", database).empty()) {
        transaction.exec("CREATE DATABASE " + transaction.quote_name(database));
        return okStatus();
      }
    }
    return execute(database, "DROP TABLE IF EXISTS job_records, node_events, meta");
  } catch (const std::exception& error) {
    return Error{"fresh database " + database + ": " + error.what()};
  }
}

Status PostgresTestServer::execute(const std::string& database, const std::string& statement) {
  try {
    pqxx::connection admin(adminConnectionString(port_, database));
    pqxx::nontransaction transaction(admin);
    transaction.exec(statement);
    return okStatus();
  } catch (const std::exception& error) {
    return Error{"in database " + database + ": " + statement + ": " + error.what()};
  }
}

Status PostgresTestServer::killNow() {
  auto status = run({(programs_ / "pg_ctl").string(), "-D", (folder_ / "data").string(), "-m", "immediate", "-w",
                     "stop"},
                    "pg_ctl.log");
  if (status) running_ = false;
  return status;
}

Status PostgresTestServer::restart() {
  // pg_ctl hands -o to a shell; the temporary folder's name has no spaces.
  std::string settings = "-c listen_addresses=127.0.0.1 -p " + std::to_string(port_) +
                         " -c unix_socket_directories=" + folder_.string() +
                         " -c max_connections=40 -c shared_buffers=32MB" +
                         (durable_ ? "" : " -c fsync=off -c full_page_writes=off");
  auto status = run({(programs_ / "pg_ctl").string(), "-D", (folder_ / "data").string(), "-l",
                     (folder_ / "server.log").string(), "-w", "-t", "60", "-o", settings, "start"},
                    "pg_ctl.log");
  if (status) running_ = true;
  else status = Error{status.error() + " server log: " + logTail("server.log")};
  return status;
}

PostgresTestServer* sharedPostgresServer(std::string* why, bool* installed) {
  static std::string reason;
  static std::unique_ptr<PostgresTestServer> server = [] {
    auto started = PostgresTestServer::start({});
    if (!started) {
      reason = started.error();
      return std::unique_ptr<PostgresTestServer>();
    }
    return std::move(*started);
  }();
  *installed = !PostgresTestServer::programsFolder().empty();
  *why = reason;
  return server.get();
}

}  // namespace gantry::accounting::testing
