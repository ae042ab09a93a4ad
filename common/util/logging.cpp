#include "common/util/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace gantry {
namespace {

spdlog::level::level_enum levelFor(const std::string& level) {
  if (level == "quiet") return spdlog::level::off;
  if (level == "fatal") return spdlog::level::critical;
  if (level == "error") return spdlog::level::err;
  if (level == "info" || level.empty()) return spdlog::level::info;
  if (level == "verbose" || level.rfind("debug", 0) == 0) return spdlog::level::debug;
  return spdlog::level::from_str(level);
}

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
    logger->set_pattern("[%Y-%m-%dT%H:%M:%S.%e] %n %l: %v");
    spdlog::set_default_logger(logger);
  } catch (const spdlog::spdlog_ex& e) {
    return Error{"cannot open log file " + file + ": " + e.what()};
  }
  return okStatus();
}

}  // namespace gantry
