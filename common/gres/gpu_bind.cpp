#include "common/gres/gpu_bind.h"

#include <cctype>

namespace gantry::gres {
namespace {

// A list longer than this is a mistake, not a layout (Slurm lists are per node).
constexpr size_t kMaxListItems = 4096;
constexpr int kMaxGpuId = 63;  // a 64-bit mask holds every id

bool allDigits(const std::string& text, bool hex) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!(hex ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c))))
      return false;
  }
  return true;
}

Result<int> positiveNumber(const std::string& text, const std::string& what) {
  if (!allDigits(text, false) || text.size() > 6 || std::stoi(text) == 0)
    return Error{"'" + text + "' is not a positive number (" + what + ")"};
  return std::stoi(text);
}

// "<item>[*<count>]" items separated by commas, each parsed by `parseItem`.
template <typename T, typename Parse>
Result<std::vector<T>> parseList(const std::string& list, const std::string& form, Parse parseItem) {
  std::vector<T> out;
  if (list.empty()) return Error{"the " + form + " list is empty"};
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string item = list.substr(start, end - start);
    int repeat = 1;
    if (size_t star = item.find('*'); star != std::string::npos) {
      auto count = positiveNumber(item.substr(star + 1), "the repeat count after '*' in " + form);
      if (!count) return Error{count.error()};
      repeat = *count;
      item = item.substr(0, star);
    }
    auto value = parseItem(item);
    if (!value) return Error{value.error()};
    if (out.size() + repeat > kMaxListItems)
      return Error{"the " + form + " list has more than " + std::to_string(kMaxListItems) + " items"};
    out.insert(out.end(), repeat, *value);
    start = end + 1;
  }
  return out;
}

Result<int> parseGpuId(const std::string& item) {
  if (!allDigits(item, false) || item.size() > 2 || std::stoi(item) > kMaxGpuId)
    return Error{"map_gpu: '" + item + "' is not a GPU id (a decimal number from 0 to " +
                 std::to_string(kMaxGpuId) + ")"};
  return std::stoi(item);
}

Result<uint64_t> parseGpuMask(const std::string& item) {
  std::string digits = item;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) digits = digits.substr(2);
  if (!allDigits(digits, true) || digits.size() > 16)
    return Error{"mask_gpu: '" + item + "' is not a hexadecimal GPU mask"};
  uint64_t mask = std::stoull(digits, nullptr, 16);
  if (mask == 0) return Error{"mask_gpu: '" + item + "' selects no GPU"};
  return mask;
}

// The part after "verbose,": exactly one binding.
Result<GpuBind> parseBinding(const std::string& text, GpuBind bind) {
  auto after = [&](const std::string& prefix) { return text.substr(prefix.size()); };
  if (text == "none") {
    bind.mode = GpuBindMode::None;
  } else if (text == "closest") {
    bind.mode = GpuBindMode::Closest;
  } else if (text.rfind("map_gpu:", 0) == 0) {
    auto ids = parseList<int>(after("map_gpu:"), "map_gpu", parseGpuId);
    if (!ids) return Error{ids.error()};
    bind.mode = GpuBindMode::MapGpu;
    bind.gpuIds = std::move(*ids);
  } else if (text.rfind("mask_gpu:", 0) == 0) {
    auto masks = parseList<uint64_t>(after("mask_gpu:"), "mask_gpu", parseGpuMask);
    if (!masks) return Error{masks.error()};
    bind.mode = GpuBindMode::MaskGpu;
    bind.masks = std::move(*masks);
  } else if (text.rfind("single:", 0) == 0 || text.rfind("per_task:", 0) == 0) {
    const bool single = text[0] == 's';
    const std::string prefix = single ? "single:" : "per_task:";
    auto count = positiveNumber(after(prefix), single ? "tasks per GPU" : "GPUs per task");
    if (!count) return Error{prefix.substr(0, prefix.size() - 1) + ": " + count.error()};
    bind.mode = single ? GpuBindMode::Single : GpuBindMode::PerTask;
    bind.count = *count;
  } else {
    return Error{"'" + text +
                 "' is not a GPU binding: expected [verbose,]none, closest, map_gpu:<list>, mask_gpu:<list>, "
                 "single:<tasks_per_gpu> or per_task:<gpus_per_task>"};
  }
  return bind;
}

}  // namespace

Result<GpuBind> parseGpuBind(const std::string& text) {
  GpuBind bind;
  std::string rest = text;
  if (rest == "verbose") {
    bind.verbose = true;
    return bind;
  }
  if (rest.rfind("verbose,", 0) == 0) {
    bind.verbose = true;
    rest = rest.substr(8);
  }
  return parseBinding(rest, bind);
}

}  // namespace gantry::gres
