// Checked integer arithmetic for sizes and counts that come from users:
// memory per cpu times cpus, tasks times cpus per task, minutes times 60.
// A product or sum that does not fit the type is nullopt, never a wrapped
// value (unsigned) or undefined behaviour (signed).
#pragma once

#include <optional>
#include <type_traits>

namespace gantry {

template <typename T>
  requires std::is_integral_v<T>
std::optional<T> checkedMul(T a, T b) {
  T product{};
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

template <typename T>
  requires std::is_integral_v<T>
std::optional<T> checkedAdd(T a, T b) {
  T sum{};
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

// The product of every factor, or nullopt as soon as one step overflows.
template <typename T, typename... Rest>
  requires std::is_integral_v<T>
std::optional<T> checkedProduct(T first, Rest... rest) {
  std::optional<T> product = first;
  ((product = product ? checkedMul<T>(*product, static_cast<T>(rest)) : std::nullopt), ...);
  return product;
}

}  // namespace gantry
