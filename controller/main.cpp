// gantryctld: the controller daemon. Loads gantry.conf, recovers its state
// from the store, serves the client and agent APIs over gRPC, and runs the
// ControllerCore on one strand until SIGTERM or SIGINT.
#include <algorithm>
#include <pwd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <spdlog/spdlog.h>
#include <thread>

#include "common/config/check_all.h"
#include "common/config/config_set.h"
#include "common/config/gantry_conf.h"
#include "common/switchlua/messages.h"
#include "common/switchlua/script_load.h"
#include "common/rpc/channel.h"
#include "common/rpc/unparsed_request.h"
#include "common/util/logging.h"
#include "controller/accounting/accounting_open.h"
#include "controller/core/controller_core.h"
#include "controller/rpc/services.h"
#include "controller/switch_call_port.h"
#include "controller/store/job_store.h"
#include "controller/store/salvage.h"

namespace {

std::string defaultConfDir() {
  const char* env = std::getenv("GANTRY_CONF_DIR");
  return env != nullptr ? env : "/etc/gantry";
}

uint32_t uidOf(const std::string& user) {
  if (passwd* entry = getpwnam(user.c_str())) return entry->pw_uid;
  return 0;
}

// A reason not to start: in the log and, since the log may be a file, on
// stderr too, where whoever started the daemon sees it.
void refuse(const std::string& message) {
  spdlog::critical("{}", message);
  std::cerr << "gantryctld: " << message << "\n";
}

// Opens the state database. A damaged one stops the controller unless
// `recover`: then it is moved aside, a new one is made of what it still
// holds, and everything lost is logged.
bool openStore(gantry::store::JobStore& store, const std::string& path, bool recover) {
  auto status = store.open(path);
  if (status) return true;
  refuse(status.error());
  if (!store.damageFound()) return false;
  if (!recover) {
    refuse("not starting from a damaged state database: restore " + path +
           " from a backup, or start gantryctld with --recover to move it aside and go on from what can "
           "still be read");
    return false;
  }
  auto now = std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::system_clock::now().time_since_epoch()).count();
  auto report = gantry::store::salvageDatabase(path, now);
  if (!report) {
    refuse("--recover failed: " + report.error());
    return false;
  }
  spdlog::critical("--recover: the damaged state database is now {}; {} carried into a new {}: {} jobs, "
                   "{} node states, {} node hardware records; job ids continue after {}",
                   report->movedTo, report->losses.empty() ? "everything readable" : "what could be read",
                   path, report->jobs, report->nodes, report->nodeHardware, report->maxJobId);
  for (const auto& loss : report->losses) spdlog::critical("--recover: LOST: {}", loss);
  if (auto reopened = store.open(path); !reopened) {
    refuse("--recover: the new state database cannot be opened: " + reopened.error());
    return false;
  }
  return true;
}

// SwitchType=switch/lua: switch.lua beside gantry.conf must load, or the
// controller does not start (the spec's "error: switch/lua:" line, then its
// fatal line). The script is loaded again, afresh, for every call.
bool loadSwitchScript(const std::string& confDir) {
  auto sink = [](gantry::switchlua::ScriptLogLevel level, const std::string& line) {
    if (level == gantry::switchlua::ScriptLogLevel::Error) spdlog::error("{}", line);
    else if (level == gantry::switchlua::ScriptLogLevel::Info) spdlog::info("{}", line);
    else spdlog::debug("{}", line);
  };
  auto loaded = gantry::switchlua::loadScript(std::filesystem::path(confDir) / "switch.lua", sink);
  if (loaded) return true;
  spdlog::error("{}", loaded.error());
  spdlog::critical("{}", gantry::switchlua::kFatalLine);
  std::cerr << "gantryctld: error: " << loaded.error() << "\n" << gantry::switchlua::kFatalLine << "\n";
  return false;
}

// AccountingStorageType: where gantryctld keeps its accounting records
// (docs/accounting.md, "Where the store is"). SQLite: AccountingStorageLoc, or
// accounting.db in StateSaveLocation. PostgreSQL: AccountingStorageHost
// (localhost), AccountingStoragePort (5432), AccountingStorageUser and
// AccountingStoragePass, database AccountingStorageLoc (gantry_acct).
gantry::accounting::AccountingConnection accountingConnection(const gantry::config::GantryConf& conf) {
  using Backend = gantry::accounting::AccountingConnection::Backend;
  const auto& storage = conf.accounting;
  gantry::accounting::AccountingConnection connection{};
  connection.backend = Backend::Sqlite;
  if (storage.backend == gantry::config::GantryConf::AccountingStorage::Backend::Postgresql) {
    connection.backend = Backend::Postgresql;
    connection.host = storage.host.empty() ? "localhost" : storage.host;
    if (storage.port != 0) connection.port = storage.port;
    connection.user = storage.user;
    connection.password = storage.pass;
    connection.database = storage.loc.empty() ? "gantry_acct" : storage.loc;
    return connection;
  }
  connection.path = storage.loc.empty()
                        ? (std::filesystem::path(conf.stateSaveLocation) / "accounting.db").string()
                        : storage.loc;
  return connection;
}

// Where the store is, for messages: never the password.
std::string storeDescription(const gantry::accounting::AccountingConnection& connection) {
  if (connection.backend == gantry::accounting::AccountingConnection::Backend::Sqlite) {
    return "SQLite database " + connection.path;
  }
  return "PostgreSQL database " + connection.database + " on " + connection.host + ":" +
         std::to_string(connection.port) + (connection.user.empty() ? "" : " as " + connection.user);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gantryctld: the Gantry controller"};
  std::string confDir = defaultConfDir();
  bool checkConfig = false;
  std::string listenAddr;
  app.add_option("--conf-dir", confDir, "configuration directory (GANTRY_CONF_DIR, /etc/gantry)");
  app.add_flag("--check-config", checkConfig, "read every configuration file, report all problems, exit");
  app.add_option("--listen", listenAddr, "address to listen on (default: SlurmctldHost's address)");
  bool recover = false;
  app.add_flag("--recover", recover,
               "if the state database (StateSaveLocation/gantry.db) is damaged, move it aside to "
               "gantry.db.corrupt-<unix time>, start from what can still be read and log what was lost "
               "(without it, a damaged database stops the controller)");
  bool foreground = true;
  app.add_flag("-D", foreground, "run in the foreground (always the case; accepted for compatibility)");
  CLI11_PARSE(app, argc, argv);

  std::filesystem::path confFile = std::filesystem::path(confDir) / "gantry.conf";
  if (checkConfig) {
    auto report = gantry::config::checkAll(confDir, {.nodeName = ""});
    std::cout << report.toString();
    return report.ok() ? 0 : 1;
  }
  auto loaded = gantry::config::loadGantryConf(confFile);
  if (!loaded) {
    std::cerr << "gantryctld: " << loaded.error() << "\n";
    return 1;
  }
  gantry::config::GantryConf& conf = loaded->conf;
  if (auto status = gantry::setupLogging("gantryctld", conf.slurmctldLogFile, conf.slurmctldDebug);
      !status) {
    std::cerr << "gantryctld: " << status.error() << "\n";
    return 1;
  }
  for (const auto& warning : loaded->warnings) spdlog::warn("{}", warning.toString());
  // Keys the configuration sets but nothing acts on yet, said once so the
  // administrator is not misled (the same lines as --check-config's notes).
  for (const auto& note : loaded->notes) spdlog::warn("{}", note.toString());

  if (conf.switchType == "switch/lua" && !loadSwitchScript(confDir)) return 1;

  if (auto status = gantry::store::createStateDirectory(conf.stateSaveLocation); !status) {
    refuse(status.error());
    return 1;
  }
  gantry::store::JobStore store;
  if (!openStore(store, (std::filesystem::path(conf.stateSaveLocation) / "gantry.db").string(), recover)) {
    return 1;
  }
  // Accounting opens before the core starts, so the core's first records
  // have somewhere to go; a store that cannot be opened stops the controller.
  std::unique_ptr<gantry::accounting::AccountingStore> accounting;
  if (conf.accountingEnabled()) {
    auto connection = accountingConnection(conf);
    auto opened = gantry::accounting::openAccountingStore(connection);
    if (!opened) {
      refuse("cannot open the accounting store (AccountingStorageType=" + conf.accountingStorageType + ", " +
             storeDescription(connection) + "): " + opened.error());
      return 1;
    }
    accounting = std::move(*opened);
    spdlog::info("accounting: {}", storeDescription(connection));
  }
  auto authenticator = gantry::auth::makeAuthenticator(conf.authType, conf.authInfo);
  if (!authenticator) {
    spdlog::critical("{}", authenticator.error());
    return 1;
  }
  // A launch waits for the node's Prolog: allow its timeout and a margin.
  auto agents = gantry::core::makeGrpcAgentGateway(**authenticator, 8,
                                                   std::chrono::seconds(conf.prologEpilogTimeoutSec + 30));
  // switch/lua: the calls of job_start and job_complete run as SlurmUser,
  // each in a process of its own; the two questions are asked here, now.
  std::unique_ptr<gantry::ctl::SwitchCallPort> switchCalls;
  gantry::core::SwitchScriptAnswers switchAnswers;
  const std::filesystem::path switchScript = std::filesystem::path(confDir) / "switch.lua";
  if (conf.switchType == "switch/lua") {
    auto identity = gantry::ctl::switchIdentityOf(conf.slurmUser);
    if (!identity) {
      refuse("switch/lua: " + identity.error());
      return 1;
    }
    switchCalls = std::make_unique<gantry::ctl::SwitchCallPort>(switchScript, std::move(*identity),
                                                                conf.slurmctldLogFile.empty());
    switchAnswers = gantry::ctl::askSwitchScript(switchScript);
  }
  gantry::SystemClock clock;
  boost::asio::io_context io;
  gantry::core::ControllerCore core(
      io, gantry::core::CoreOptions{.conf = &conf,
                                    .clock = &clock,
                                    .store = &store,
                                    .agents = agents.get(),
                                    .slurmUserUid = uidOf(conf.slurmUser),
                                    .keepFinishedSeconds = conf.minJobAgeSeconds,
                                    .switchCalls = switchCalls.get(),
                                    .switchAnswers = switchAnswers,
                                    .drainedTresChanged = {},
                                    .accounting = accounting.get()});
  if (auto status = core.start(); !status) {
    spdlog::critical("cannot recover state: {}", status.error());
    return 1;
  }
  core.drainForConfiguration(gantry::ctl::gresConfDrains(confDir, conf));

  // SIGHUP and `scontrol reconfigure` re-read the configuration the same way.
  gantry::ctl::ConfigReloader reloader(confDir, core);
  if (switchCalls) reloader.askSwitchScriptWith([switchScript] { return gantry::ctl::askSwitchScript(switchScript); });
  gantry::ctlrpc::ControllerService clientService(core, **authenticator, &reloader);
  // PrivateData as read at start, as slurmdbd reads its own: a
  // reconfigure does not change who sees accounting records.
  clientService.serveAccounting({.store = accounting.get(),
                                 .cluster = conf.clusterName,
                                 .privateJobs = conf.privateData.jobs});
  // scontrol shutdown takes the SIGTERM path below; signalled, not called, so
  // the stop starts on the signal's own handler and the call is answered
  // within the server's grace period.
  clientService.stopWith([] { ::kill(::getpid(), SIGTERM); });
  gantry::ctlrpc::ControllerAgentService agentService(core, **authenticator);
  std::string addr = listenAddr.empty() ? conf.controllerAddr : listenAddr;
  if (addr.empty()) addr = "0.0.0.0";
  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT by default, which would let a second controller
  // started on the same port take half of the new connections; it must
  // fail to listen instead. Nothing else here limits new connections: the
  // accept queue is the kernel's somaxconn, and the synchronous server
  // starts a thread for each call waiting on the core. What made clients
  // fail under load was their own connect timeout (common/rpc/channel.cpp).
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  int boundPort = 0;
  builder.AddListeningPort(gantry::rpc::endpoint(addr, conf.controllerPort),
                           grpc::InsecureServerCredentials(), &boundPort);
  builder.RegisterService(&clientService);
  builder.RegisterService(&agentService);
  // Room for the largest script a submission may carry (max_script_size,
  // read at start) and its environment, so an oversized script meets the
  // controller's own refusal instead of a transport error.
  builder.SetMaxReceiveMessageSize(static_cast<int>(
      std::min<uint64_t>(conf.maxScriptSizeBytes + 16 * 1024 * 1024, 1024ull * 1024 * 1024)));
  gantry::rpc::answerUnparsedRequests(builder);  // INVALID_ARGUMENT, not INTERNAL, for bytes we cannot parse
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || boundPort == 0) {
    spdlog::critical("cannot listen on {}", gantry::rpc::endpoint(addr, conf.controllerPort));
    return 1;
  }
  spdlog::info("gantryctld {} listening on {}, cluster {}, {} nodes, {} partitions",
               GANTRY_VERSION, gantry::rpc::endpoint(addr, conf.controllerPort), conf.clusterName,
               conf.nodes.size(), conf.partitions.size());

  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int signal) {
    spdlog::info("signal {}: shutting down", signal);
    // The core's io stops once the core has stopped its own work: retries
    // of node commands an unreachable agent never acknowledges are not
    // waited for, or the controller would never exit while a node is down.
    core.stop([&io] { io.stop(); });
    std::thread([&server] { server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2)); }).detach();
  });
  // SIGHUP re-reads the configuration on a thread of its own (file I/O
  // never runs on the core's strand); a bad file leaves the running
  // configuration in place. The reloader logs what went wrong.
  boost::asio::io_context hangupIo;
  boost::asio::signal_set hangup(hangupIo, SIGHUP);
  std::function<void()> awaitHangup = [&] {
    hangup.async_wait([&](const boost::system::error_code& ec, int) {
      if (ec) return;
      (void)reloader.reload();
      awaitHangup();
    });
  };
  awaitHangup();
  std::thread hangupThread([&hangupIo] { hangupIo.run(); });

  std::thread coreThread([&io] { io.run(); });
  server->Wait();
  coreThread.join();
  switchCalls.reset();  // kills what still runs; no report reaches the core any more
  hangupIo.stop();
  hangupThread.join();
  store.flush();
  store.close();
  // After the core has stopped: everything it queued is written.
  if (accounting) {
    core.flushAccounting();
    accounting->flush();
    accounting->close();
  }
  spdlog::info("gantryctld stopped");
  return 0;
}
