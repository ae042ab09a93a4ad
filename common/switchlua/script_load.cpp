#include "common/switchlua/script_load.h"

#include "common/switchlua/messages.h"
#include "common/switchlua/script_state.h"

namespace gantry::switchlua {

Status loadScript(const std::filesystem::path& path, const LogSink& sink) {
  ScriptContext context{.sink = sink};
  auto state = openScript(path, context);
  if (!state) return state.failure();
  if (sink) sink(ScriptLogLevel::Info, std::string(kScriptLoaded));
  return okStatus();
}

}  // namespace gantry::switchlua
