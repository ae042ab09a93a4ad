#include "cli/signal_names.h"

#include <csignal>
#include <cctype>

#include "cli/parse_units.h"

namespace gantry::cli {
namespace {

struct SignalName {
  const char* name;
  int number;
};

constexpr SignalName kSignals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"ABRT", SIGABRT},
    {"KILL", SIGKILL}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"ALRM", SIGALRM},
    {"TERM", SIGTERM}, {"CONT", SIGCONT}, {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},
    {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU}, {"URG", SIGURG},   {"XCPU", SIGXCPU},
};

// Linux numbers signals 1..64.
constexpr int kHighestSignal = 64;

}  // namespace

Result<int> parseSignal(const std::string& text) {
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
    auto number = parseCount(text);
    if (number && *number <= kHighestSignal) return *number;
    return Error{"invalid signal '" + text + "': numbers run from 1 to 64"};
  }
  std::string name;
  for (char c : text) name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (name.rfind("SIG", 0) == 0) name = name.substr(3);
  for (const SignalName& signal : kSignals) {
    if (name == signal.name) return signal.number;
  }
  return Error{"invalid signal '" + text + "': expected a name such as KILL, TERM, USR1 or a number"};
}

}  // namespace gantry::cli
