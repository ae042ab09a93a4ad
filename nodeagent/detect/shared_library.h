// RAII handle of a library opened with dlopen, so vendor management libraries
// are never linked and are unloaded as soon as detection is done.
#pragma once

#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::detect {

class SharedLibrary {
 public:
  // Tries each name in turn; fails with the last dlerror().
  static Result<SharedLibrary> open(const std::vector<std::string>& names);
  SharedLibrary(SharedLibrary&& other) noexcept;
  SharedLibrary& operator=(SharedLibrary&& other) noexcept;
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary();

  // Null when the symbol is absent (older drivers lack newer entry points).
  template <typename Fn>
  Fn symbol(const char* name) const {
    return reinterpret_cast<Fn>(rawSymbol(name));
  }
  const std::string& name() const { return name_; }

 private:
  SharedLibrary(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
  void* rawSymbol(const char* name) const;
  void* handle_ = nullptr;
  std::string name_;
};

}  // namespace gantry::detect
