// gantryd: the node agent. Detects its node's hardware, registers with the
// controller, starts one gantrystepd per step and reports their ends. Its
// steps outlive it: a restarted agent finds them in its spool directory.
#include <pwd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <spdlog/spdlog.h>

#include "common/auth/identity.h"
#include "common/config/check_all.h"
#include "common/config/config_set.h"
#include "common/config/gantry_conf.h"
#include "common/rpc/channel.h"
#include "common/rpc/unparsed_request.h"
#include "common/util/logging.h"
#include "nodeagent/agent_reconfigure.h"
#include "nodeagent/confinement_setup.h"
#include "nodeagent/detect/gpu_library.h"
#include "nodeagent/gpu_library_setup.h"
#include "nodeagent/hardware_report.h"
#include "nodeagent/launch/step_launcher.h"
#include "nodeagent/reconfigure_requests.h"
#include "nodeagent/startup_checks.h"
#include "nodeagent/rpc/agent_service.h"
#include "nodeagent/rpc/controller_link.h"

namespace fs = std::filesystem;

namespace {

std::string defaultConfDir() {
  const char* env = std::getenv("GANTRY_CONF_DIR");
  return env != nullptr ? env : "/etc/gantry";
}

std::string hostName() {
  char buffer[256] = {};
  gethostname(buffer, sizeof buffer - 1);
  std::string name(buffer);
  return name.substr(0, name.find('.'));
}

fs::path stepdNextToSelf() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return self.parent_path() / "gantrystepd";
}

uint32_t uidOf(const std::string& user) {
  if (passwd* entry = getpwnam(user.c_str())) return entry->pw_uid;
  return 0;
}

std::unique_ptr<grpc::Server> g_server;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gantryd: the Gantry node agent"};
  std::string confDir = defaultConfDir();
  std::string nodeName;
  int port = 0;
  std::string stateDir;
  std::string hostRoot = "/";
  std::string stepd;
  std::string parameters;
  bool printNode = false, printGres = false, checkConfig = false;
  app.add_option("--conf-dir", confDir, "configuration directory (GANTRY_CONF_DIR, /etc/gantry)");
  app.add_option("-N,--name", nodeName, "node name (default: the short host name)");
  app.add_option("--port", port, "port to listen on (default: the node's Port or SlurmdPort)");
  app.add_option("--state-dir", stateDir, "spool directory (default: SlurmdSpoolDir)");
  app.add_option("--host-root", hostRoot, "prefix for /proc, /sys and /dev (fixture trees in tests)");
  app.add_option("--stepd", stepd, "path of gantrystepd (default: next to gantryd)");
  app.add_option("--parameters", parameters, "with -C: SlurmdParameters to apply (l3cache_as_socket, ...)");
  std::string nvmlLibrary, rsmiLibrary;
  app.add_option("--nvml-library", nvmlLibrary, "NVML library to dlopen (GANTRY_NVML_LIBRARY; tests use a fake)");
  app.add_option("--rsmi-library", rsmiLibrary, "ROCm SMI library to dlopen (GANTRY_RSMI_LIBRARY)");
  app.add_flag("-C", printNode, "print the node's detected configuration line and exit");
  app.add_flag("-G", printGres, "print the GRES records the agent would use and exit");
  app.add_flag("--check-config", checkConfig, "read every configuration file, report all problems, exit");
  bool foreground = true;
  app.add_flag("-D", foreground, "run in the foreground (always the case; accepted for compatibility)");
  bool underSystemd = false;
  app.add_flag("--systemd", underSystemd,
               "started by systemd (the packaged unit): a failed resctrl reconfigure keeps the agent running");
  CLI11_PARSE(app, argc, argv);

  // Signals are taken by one thread with sigwait(); block them before any
  // other thread starts so none of those threads is killed by them.
  sigset_t handledSignals;
  sigemptyset(&handledSignals);
  sigaddset(&handledSignals, SIGTERM);
  sigaddset(&handledSignals, SIGINT);
  sigaddset(&handledSignals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &handledSignals, nullptr);

  if (nodeName.empty()) nodeName = hostName();
  fs::path gantryConfPath = fs::path(confDir) / "gantry.conf";
  auto loaded = gantry::config::loadGantryConf(gantryConfPath);
  if (!loaded && !checkConfig) {
    std::cerr << "gantryd: " << loaded.error() << "\n";
    return 1;
  }
  const gantry::config::NodeConf* configuredNode = loaded ? loaded->conf.findNode(nodeName) : nullptr;
  if (loaded && !configuredNode && !printNode && !checkConfig) {
    std::cerr << "gantryd: node " << nodeName << " is not in " << gantryConfPath.string() << "\n";
    return 1;
  }

  gantry::agent::ReportOptions reportOptions{.confDir = confDir,
                                             .hostRoot = hostRoot,
                                             .parameters = {},
                                             .nvmlLibrary = nvmlLibrary,
                                             .rsmiLibrary = rsmiLibrary};
  if (!parameters.empty()) reportOptions.parameters.push_back(parameters);

  if (checkConfig) {
    // Every file on its own, then the checks a start of this node makes on
    // this host: --check-config says yes only when the start would.
    auto report = gantry::config::checkAll(confDir, {.nodeName = nodeName});
    std::cout << report.toString();
    bool ok = report.ok();
    if (loaded && !configuredNode) {
      std::cout << "node " << nodeName << " is not in " << gantryConfPath.string() << "\n";
      ok = false;
    } else if (loaded && report.ok()) {
      auto checks = gantry::agent::checkNodeStart(loaded->conf, *configuredNode, reportOptions);
      for (const auto& error : checks.errors) std::cout << error << "\n";
      for (const auto& warning : checks.warnings) std::cout << "warning: " << warning << "\n";
      ok = checks.ok();
    }
    return ok ? 0 : 1;
  }

  const gantry::config::GantryConf& conf = loaded->conf;
  gantry::config::NodeConf nodeConf;
  if (configuredNode) {
    nodeConf = *configuredNode;
  } else {
    nodeConf.name = nodeName;  // -C on a node that is not configured yet
  }
  if (printNode) {
    std::vector<std::string> notes;
    auto report = gantry::agent::formatNodeReport(conf, nodeConf, reportOptions, &notes);
    for (const auto& note : notes) std::cerr << "gantryd: " << note << "\n";
    if (!report) {
      std::cerr << "gantryd: " << report.error() << "\n";
      return 1;
    }
    std::cout << *report;
    if (!printGres) return 0;
  }
  auto checks = gantry::agent::checkNodeStart(conf, nodeConf, reportOptions);
  // -G runs the same detection and checks as a real start, prints what it
  // found and fails the way the start would.
  if (printGres) {
    for (const auto& error : checks.errors) std::cerr << "gantryd: error: " << error << "\n";
    if (!checks.ok()) return 1;
    std::cout << gantry::agent::formatGresReport(*checks.hardware);
    return 0;
  }

  std::string logFile = gantry::config::expandPathPattern(conf.slurmdLogFile, nodeName, hostName());
  if (auto status = gantry::setupLogging("gantryd", logFile, conf.slurmdDebug); !status) {
    std::cerr << "gantryd: " << status.error() << "\n";
    return 1;
  }
  for (const auto& warning : loaded->warnings) spdlog::warn("{}", warning.toString());
  if (!checks.ok()) {
    // Each problem at error level, worded as the spec words it; then why we stop.
    for (const auto& error : checks.errors) spdlog::error("{}", error);
    spdlog::critical("not starting: node {} cannot be set up as configured (errors above)", nodeName);
    return 1;
  }
  const gantry::agent::HardwareReport* hardware = &*checks.hardware;
  for (const auto& line : hardware->log) spdlog::info("{}", line);
  for (const auto& warning : hardware->warnings) spdlog::warn("{}", warning);
  for (const auto& error : hardware->errors) spdlog::error("{}", error);
  // Held until main returns: the agent's lifetime.
  std::vector<std::string> gpuLibraryLog;
  auto gpuLibrary = gantry::agent::holdGpuLibrary(conf, *hardware, reportOptions, &gpuLibraryLog);
  for (const auto& line : gpuLibraryLog) spdlog::info("{}", line);

  if (stateDir.empty()) stateDir = gantry::config::expandPathPattern(conf.slurmdSpoolDir, nodeName, hostName());
  if (port == 0) port = nodeConf.port != 0 ? nodeConf.port : conf.slurmdPort;
  std::string addr = nodeConf.addr.empty() ? nodeName : nodeConf.addr;

  auto authenticator = gantry::auth::makeAuthenticator(conf.authType, conf.authInfo);
  if (!authenticator) {
    spdlog::critical("{}", authenticator.error());
    return 1;
  }
  int64_t bootTime = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch()).count();
  std::vector<std::string> confinementLog, confinementWarnings;
  auto confinement = gantry::agent::prepareConfinement(
      conf, *hardware,
      gantry::agent::ConfinementSetupOptions{.confDir = confDir, .hostRoot = hostRoot, .nodeName = nodeName},
      &confinementLog, &confinementWarnings);
  if (confinement) {
    auto resctrlRoot = gantry::agent::prepareResctrl(
        conf, gantry::agent::ConfinementSetupOptions{.confDir = confDir, .hostRoot = hostRoot, .nodeName = nodeName},
        &confinementLog);
    if (resctrlRoot) confinement->resctrlRoot = *resctrlRoot;
    else confinement = gantry::Error{resctrlRoot.error()};
  }
  for (const auto& line : confinementLog) spdlog::info("{}", line);
  for (const auto& warning : confinementWarnings) spdlog::warn("{}", warning);
  if (!confinement) {
    spdlog::critical("{}", confinement.error());
    return 1;
  }
  gantry::agent::StepLauncher launcher(gantry::agent::LauncherOptions{
      .spoolDir = stateDir,
      .stepdPath = stepd.empty() ? stepdNextToSelf() : fs::path(stepd),
      .nodeName = nodeName,
      .clusterName = conf.clusterName,
      .hostRoot = hostRoot,
      .confinement = *confinement,
      .gpuLibrary = gantry::agent::stepGpuLibrarySettings(conf, *hardware, reportOptions),
      .accounting = gantry::agent::stepAccountingSettings(
          conf, gantry::detect::selectedGpuPlugin(hardware->node.autoDetect, hardware->node.detected),
          gantry::agent::detectedGpuFacts(hardware->node.detected)),
      .jobScripts = {.prolog = conf.prolog,
                     .epilog = conf.epilog,
                     .timeout = std::chrono::seconds(conf.prologEpilogTimeoutSec)},
      .switchScript = conf.switchType == "switch/lua" ? fs::path(confDir) / "switch.lua" : fs::path()});
  // The controller's Reconfigure call (scontrol reconfigure) takes the
  // SIGHUP path below.
  gantry::agent::ReconfigureRequests reconfigures([] { kill(getpid(), SIGHUP); });
  gantry::agent::AgentService service(launcher, **authenticator, uidOf(conf.slurmUser), nodeName, bootTime,
                                      &reconfigures);

  grpc::ServerBuilder builder;
  int boundPort = 0;
  builder.AddListeningPort(gantry::rpc::endpoint(addr, port), grpc::InsecureServerCredentials(), &boundPort);
  builder.RegisterService(&service);
  gantry::rpc::answerUnparsedRequests(builder);  // INVALID_ARGUMENT, not INTERNAL, for bytes we cannot parse
  g_server = builder.BuildAndStart();
  if (!g_server || boundPort == 0) {
    spdlog::critical("cannot listen on {}", gantry::rpc::endpoint(addr, port));
    return 1;
  }
  spdlog::info("gantryd {} for node {} listening on {}, spool {}", GANTRY_VERSION, nodeName,
               gantry::rpc::endpoint(addr, port), stateDir);

  int heartbeatSeconds = std::max(1, std::min(30, conf.slurmdTimeoutSec / 3));
  gantry::agent::ControllerLink link(
      gantry::agent::LinkOptions{.controllerAddr = conf.controllerAddr,
                                 .controllerPort = conf.controllerPort,
                                 .nodeName = nodeName,
                                 .listenAddr = addr,
                                 .listenPort = port,
                                 .hardware = hardware->hardware,
                                 .hardwareErrors = hardware->errors,
                                 .heartbeatInterval = std::chrono::seconds(heartbeatSeconds),
                                 .bootTime = bootTime},
      launcher, **authenticator);
  link.start();

  // SIGTERM/SIGINT stop the agent only; steps keep running. SIGHUP re-reads
  // the configuration: resctrl groups are set up again and new steps get
  // the new confinement settings; a configuration that does not load
  // changes nothing, and a failed resctrl set-up stops an agent that runs
  // in the foreground without --systemd (agent_reconfigure.h).
  int exitCode = 0;
  std::optional<gantry::agent::HardwareReport> freshHardware;  // the latest reconfigure's, once there is one
  std::thread waiter([&] {
    for (;;) {
      int signal = 0;
      sigwait(&handledSignals, &signal);
      if (signal != SIGHUP) {
        spdlog::info("signal {}: stopping (steps keep running)", signal);
        g_server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
        return;
      }
      const uint64_t reconfigureTicket = reconfigures.begin();
      auto outcome = gantry::agent::reconfigureAgent(
          {.confDir = confDir,
           .nodeName = nodeName,
           .hostRoot = hostRoot,
           .underSystemd = underSystemd,
           .redetect = reportOptions},
          *hardware);
      for (const auto& line : outcome.log) spdlog::info("{}", line);
      for (const auto& warning : outcome.warnings) spdlog::warn("{}", warning);
      if (outcome.verdict == gantry::agent::ReconfigureVerdict::Exit) {
        spdlog::critical("reconfigure failed, stopping (a foreground agent without --systemd does not resume; "
                         "steps keep running)\n{}",
                         outcome.error);
        reconfigures.finish(reconfigureTicket, "reconfigure failed, the agent stops.\n" + outcome.error);
        exitCode = 1;
        g_server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
        return;
      }
      if (outcome.verdict == gantry::agent::ReconfigureVerdict::KeepRunning) {
        spdlog::error("Resuming operation, reconfigure failed.\n{}", outcome.error);
        reconfigures.finish(reconfigureTicket, "Resuming operation, reconfigure failed.\n" + outcome.error);
        continue;
      }
      launcher.setConfinement(*outcome.settings);
      if (outcome.hardware) {
        // Registered again with the GRES of the new gres.conf and Gres=;
        // the controller keeps nothing of the old GRES.
        for (const auto& error : outcome.hardware->errors) spdlog::error("{}", error);
        link.updateHardware(outcome.hardware->hardware, outcome.hardware->errors);
        freshHardware = std::move(*outcome.hardware);
        hardware = &*freshHardware;
      }
      // The accounting keys may have changed too (the selected plugin has not).
      if (auto fresh = gantry::config::loadGantryConf(gantryConfPath); fresh) {
        launcher.setGpuLibrary(gantry::agent::stepGpuLibrarySettings(fresh->conf, *hardware, reportOptions));
        launcher.setAccounting(gantry::agent::stepAccountingSettings(
            fresh->conf, gantry::detect::selectedGpuPlugin(hardware->node.autoDetect, hardware->node.detected),
            gantry::agent::detectedGpuFacts(hardware->node.detected)));
      }
      spdlog::info("reconfigured from {}", confDir);
      reconfigures.finish(reconfigureTicket, "");
    }
  });
  g_server->Wait();
  link.stop();
  waiter.join();
  return exitCode;
}
