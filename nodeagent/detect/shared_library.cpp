#include "nodeagent/detect/shared_library.h"

#include <dlfcn.h>

#include <utility>

namespace gantry::detect {

Result<SharedLibrary> SharedLibrary::open(const std::vector<std::string>& names) {
  std::string lastError = "no library name given";
  for (const auto& name : names) {
    if (void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return SharedLibrary(handle, name);
    const char* why = dlerror();
    lastError = why ? why : ("cannot load " + name);
  }
  return Error{lastError};
}

SharedLibrary::SharedLibrary(SharedLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), name_(std::move(other.name_)) {}

SharedLibrary& SharedLibrary::operator=(SharedLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    name_ = std::move(other.name_);
  }
  return *this;
}

SharedLibrary::~SharedLibrary() {
  if (handle_) dlclose(handle_);
}

void* SharedLibrary::rawSymbol(const char* name) const { return handle_ ? dlsym(handle_, name) : nullptr; }

}  // namespace gantry::detect
