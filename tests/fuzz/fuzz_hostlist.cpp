// Expands arbitrary text; whatever expands must survive a round trip:
// compress() keeps the set of names, compressInOrder() the exact sequence.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string_view>

#include "common/hostlist/hostlist.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto names = gantry::hostlist::expand(text);
  if (!names.ok() || names->size() > 20000) return 0;
  std::string compressed = gantry::hostlist::compress(names.value());
  auto again = gantry::hostlist::expand(compressed);
  if (!again.ok()) __builtin_trap();
  std::set<std::string> before(names->begin(), names->end());
  std::set<std::string> after(again->begin(), again->end());
  if (before != after) __builtin_trap();
  auto ordered = gantry::hostlist::expand(gantry::hostlist::compressInOrder(names.value()));
  if (!ordered.ok() || ordered.value() != names.value()) __builtin_trap();
  return 0;
}
