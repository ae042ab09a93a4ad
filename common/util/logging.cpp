#include "common/util/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <string_view>

namespace gantry {
namespace {

constexpr const char* kLinePattern = "[%Y-%m-%dT%H:%M:%S.%e] %n %l: %v";

spdlog::level::level_enum levelFor(const std::string& level) {
  if (level == "quiet") return spdlog::level::off;
  if (level == "fatal") return spdlog::level::critical;
  if (level == "error") return spdlog::level::err;
  if (level == "info" || level.empty()) return spdlog::level::info;
  if (level == "verbose" || level.rfind("debug", 0) == 0) return spdlog::level::debug;
  return spdlog::level::from_str(level);
}

// A record of several lines (a reconfigure error listing every bad line of
// a file, say) is written as that many log lines, each with the record's
// time, program and level, so filtering the log by level or time never
// leaves a bare continuation line behind.
class EveryLinePrefixed final : public spdlog::formatter {
 public:
  EveryLinePrefixed() : line_(std::make_unique<spdlog::pattern_formatter>(kLinePattern)) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    std::string_view text(msg.payload.data(), msg.payload.size());
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);  // no empty last line
    for (;;) {
      size_t end = text.find('\n');
      spdlog::details::log_msg line = msg;
      line.payload = spdlog::string_view_t(text.data(), end == std::string_view::npos ? text.size() : end);
      line_->format(line, dest);
      if (end == std::string_view::npos) return;
      text.remove_prefix(end + 1);
    }
  }

  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<EveryLinePrefixed>(); }

 private:
  std::unique_ptr<spdlog::pattern_formatter> line_;
};

}  // namespace

Status setupLogging(const std::string& program, const std::string& file, const std::string& level) {
  try {
    std::shared_ptr<spdlog::logger> logger;
    if (file.empty()) {
      logger = spdlog::stderr_logger_mt(program);
    } else {
      logger = spdlog::basic_logger_mt(program, file);
    }
    logger->set_level(levelFor(level));
    logger->flush_on(spdlog::level::info);
    logger->set_formatter(std::make_unique<EveryLinePrefixed>());
    spdlog::set_default_logger(logger);
  } catch (const spdlog::spdlog_ex& e) {
    return Error{"cannot open log file " + file + ": " + e.what()};
  }
  return okStatus();
}

}  // namespace gantry
