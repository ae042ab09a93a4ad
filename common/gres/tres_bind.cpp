#include "common/gres/tres_bind.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <strings.h>
#include <vector>

#include "common/gres/gpu_bind.h"

namespace gantry::gres {
namespace {

// The non-empty pieces of `text` between `sep`s (as strtok gives them).
std::vector<std::string> pieces(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(sep, start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool startsWithNoCase(const std::string& text, const char* prefix) {
  size_t n = std::char_traits<char>::length(prefix);
  return text.size() >= n && ::strncasecmp(text.c_str(), prefix, n) == 0;
}

// strtol's reading, as Slurm's checks use it: the value and where it
// stopped. LONG_MAX also stands for "too large", which Slurm refuses.
struct Parsed {
  long value;
  const char* end;
};
Parsed readLong(const char* text, int base) {
  char* end = nullptr;
  errno = 0;
  long value = std::strtol(text, &end, base);
  return {value, end};
}

bool usableNumber(long value) { return value >= 0 && value != LONG_MAX; }

// per_task:<N>, single:<N>.
Status checkNumber(const std::string& text, const std::string& item) {
  if (usableNumber(readLong(text.c_str(), 0).value)) return okStatus();
  return Error{"'" + item + "': '" + text + "' is not a count of 0 or more"};
}

// One item of a map (decimal) or mask (hexadecimal) list: <n>[*<count>].
Status checkListItem(std::string token, bool hex, const std::string& item) {
  if (hex && token.rfind("0x", 0) == 0) token.erase(0, 2);
  for (char c : token) {
    bool digit = hex ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c));
    if (!digit && c != '*') {
      return Error{"'" + item + "': offending character '" + std::string(1, c) + "' in '" + token + "' (expected " +
                   (hex ? "hexadecimal masks" : "decimal ids") + ", each optionally *<count>)"};
    }
  }
  Parsed number = readLong(token.c_str(), hex ? 16 : 10);
  if (!usableNumber(number.value) || (*number.end != '\0' && *number.end != '*')) {
    return Error{"'" + item + "': '" + token + "' is not a valid list item"};
  }
  if (*number.end == '*') {
    Parsed repeat = readLong(number.end + 1, 0);
    if (!usableNumber(repeat.value) || *repeat.end != '\0') {
      return Error{"'" + item + "': '" + token + "' has a bad repeat count"};
    }
  }
  return okStatus();
}

Status checkList(const std::string& list, bool hex, const std::string& item) {
  for (const std::string& token : pieces(list, ',')) {
    if (auto status = checkListItem(token, hex, item); !status) return status;
  }
  return okStatus();
}

std::string withoutVerbose(const std::string& binding) {
  return startsWithNoCase(binding, "verbose,") ? binding.substr(8) : binding;
}

// The binding of a GPU-like GRES (gpu, nic, ...).
Status checkGresBinding(const std::string& given, const std::string& item) {
  std::string binding = withoutVerbose(given);
  struct Form {
    const char* prefix;
    enum { Plain, Decimal, Hex, Number } kind;
  };
  // Old and new spellings, in the order Slurm tries them.
  static const Form kForms[] = {{"closest", Form::Plain},   {"map_gpu:", Form::Decimal},  {"map:", Form::Decimal},
                                {"mask_gpu:", Form::Hex},   {"mask:", Form::Hex},         {"none", Form::Plain},
                                {"per_task:", Form::Number}, {"single:", Form::Number}};
  for (const Form& form : kForms) {
    if (!startsWithNoCase(binding, form.prefix)) continue;
    std::string rest = binding.substr(std::char_traits<char>::length(form.prefix));
    switch (form.kind) {
      case Form::Plain: return okStatus();
      case Form::Decimal: return checkList(rest, false, item);
      case Form::Hex: return checkList(rest, true, item);
      case Form::Number: return checkNumber(rest, item);
    }
  }
  return Error{"'" + item + "': unknown binding '" + given +
               "' (expected [verbose,]closest, none, map:<list>, mask:<list>, per_task:<N> or single:<N>)"};
}

// mps and shard bind only as none or per_task.
Status checkSharedBinding(const std::string& given, const std::string& item) {
  std::string binding = withoutVerbose(given);
  if (startsWithNoCase(binding, "none")) return okStatus();
  if (startsWithNoCase(binding, "per_task:")) return checkNumber(binding.substr(9), item);
  return Error{"'" + item + "': a shared GRES binds only as [verbose,]none or per_task:<N>"};
}

}  // namespace

Status checkTresBind(const std::string& text) {
  for (const std::string& item : pieces(text, '+')) {
    size_t colon = item.find(':');
    if (colon == std::string::npos) return Error{"'" + item + "': expected gres/<name>:<binding>"};
    std::string tres = item.substr(0, colon);
    std::string binding = item.substr(colon + 1);
    if (tres.rfind("gres/", 0) != 0) return Error{"'" + item + "': only gres/<name> can be bound"};
    std::string name = tres.substr(5);
    Status status = name == "mps" || name == "shard" ? checkSharedBinding(binding, item)
                                                      : checkGresBinding(binding, item);
    if (!status) return status;
  }
  return okStatus();
}

std::string gpuBindOfTresBind(const std::string& tresBind) {
  for (const std::string& item : pieces(tresBind, '+')) {
    if (item.rfind("gres/gpu:", 0) != 0) continue;
    std::string binding = item.substr(9);
    std::string verbose;
    if (startsWithNoCase(binding, "verbose,")) {
      verbose = "verbose,";
      binding = binding.substr(8);
    }
    if (startsWithNoCase(binding, "map:")) binding = "map_gpu:" + binding.substr(4);
    else if (startsWithNoCase(binding, "mask:")) binding = "mask_gpu:" + binding.substr(5);
    std::string asGpuBind = verbose + binding;
    return parseGpuBind(asGpuBind) ? asGpuBind : "";
  }
  return "";
}

std::string effectiveGpuBind(const std::string& tresBind, const std::string& gpuBind) {
  return tresBind.empty() ? gpuBind : gpuBindOfTresBind(tresBind);
}

std::string impliedGpuBind(int64_t gpusPerTask) {
  return gpusPerTask > 0 ? "per_task:" + std::to_string(gpusPerTask) : "";
}

}  // namespace gantry::gres
