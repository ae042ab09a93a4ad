// Where the lines of switch.lua go. The library writes no log of its own:
// the daemon (or the child process that runs a call) hands in a sink and
// decides the file, syslog or test vector the lines end up in.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace gantry::switchlua {

// The levels a script can log at, most important first. slurm.log(level, msg)
// numbers them 0 (Info) to 5 (Debug4); slurm.error() and slurm.log_error()
// use Error.
enum class ScriptLogLevel { Error, Info, Verbose, Debug, Debug2, Debug3, Debug4 };

std::string_view toString(ScriptLogLevel level);

// Called once per line, on the thread that runs the script. Every line the
// script writes arrives already prefixed "switch/lua: <function>: ".
using LogSink = std::function<void(ScriptLogLevel, std::string)>;

}  // namespace gantry::switchlua
