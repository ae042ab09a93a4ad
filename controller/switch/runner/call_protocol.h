// What the runner and its helper program (gantryswitchcall) say to each
// other. The runner hands the helper one *order* (which script, which
// function, which arguments) on its standard input; the helper answers on
// its result channel with newline-delimited JSON: one line per line the
// script logs, as it logs it, then one closing line with the call's result
// (or, when the order itself was unusable, with an error). A helper that
// ends before the closing line has given no result.
//
// Pure: text in, values out; no I/O.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "common/switchlua/script_call.h"
#include "common/switchlua/script_log.h"
#include "common/util/result.h"

namespace gantry::interconnect {

// Who the helper becomes before it loads the script. It starts as the
// runner's user (root) so that it can always be executed and read its
// order, and switches here (supplementary groups, then gid, then uid).
struct CallIdentity {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::vector<uint32_t> groups;  // empty: none
};

struct CallOrder {
  std::filesystem::path script;
  std::string function;
  switchlua::CallArguments arguments;
  std::optional<CallIdentity> runAs;  // absent: stay as started
};

std::string encodeOrder(const CallOrder& order);
// Error: what is wrong with the text (not JSON, a field missing or of the
// wrong type).
Result<CallOrder> decodeOrder(std::string_view text);

// One line of the result channel, '\n' included.
std::string encodeLogLine(switchlua::ScriptLogLevel level, const std::string& line);
std::string encodeResult(const switchlua::CallResult& result);
std::string encodeOrderError(const std::string& why);

namespace channel {
struct LogLine {
  switchlua::ScriptLogLevel level = switchlua::ScriptLogLevel::Info;
  std::string line;
};
struct Finished {
  switchlua::CallResult result;
};
struct OrderRefused {
  std::string why;
};
}  // namespace channel
using ChannelMessage = std::variant<channel::LogLine, channel::Finished, channel::OrderRefused>;

// One line without its '\n'. Error: the line is not a message of the
// channel (which only a broken helper would send).
Result<ChannelMessage> decodeChannelLine(std::string_view line);

}  // namespace gantry::interconnect
