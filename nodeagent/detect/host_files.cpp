#include "nodeagent/detect/host_files.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gantry::detect {

namespace fs = std::filesystem;

std::string hostPath(const std::string& hostRoot, const std::string& path) {
  if (hostRoot.empty() || hostRoot == "/") return path;
  std::string root = hostRoot;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return root + (path.starts_with('/') ? path : "/" + path);
}

std::optional<std::string> readText(const std::string& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string trim(const std::string& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

std::optional<std::string> readLine(const std::string& file) {
  auto text = readText(file);
  if (!text) return std::nullopt;
  return trim(text->substr(0, text->find('\n')));
}

std::vector<std::string> listDir(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool pathExists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

static std::optional<int> parseNonNegative(const std::string& text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  return std::stoi(text);
}

Result<std::vector<int>> parseCpuList(const std::string& text, const std::string& what) {
  std::vector<int> ids;
  std::stringstream pieces(trim(text));
  std::string piece;
  while (std::getline(pieces, piece, ',')) {
    piece = trim(piece);
    if (piece.empty()) continue;
    auto dash = piece.find('-');
    auto first = parseNonNegative(piece.substr(0, dash));
    auto last = dash == std::string::npos ? first : parseNonNegative(piece.substr(dash + 1));
    if (!first || !last || *last < *first) {
      return Error{what + ": '" + piece + "' is not a CPU number or ascending range"};
    }
    for (int id = *first; id <= *last; ++id) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::string normalizeBusId(const std::string& busId) {
  std::string id = trim(busId);
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
  auto firstColon = id.find(':');
  if (firstColon == std::string::npos) return id;
  if (id.find(':', firstColon + 1) == std::string::npos) return "0000:" + id;
  std::string domain = id.substr(0, firstColon);
  if (domain.size() > 4) domain = domain.substr(domain.size() - 4);
  while (domain.size() < 4) domain = "0" + domain;
  return domain + id.substr(firstColon);
}

std::optional<std::string> findKeyedValue(const std::string& text, const std::string& keyWithSeparator) {
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with(keyWithSeparator)) return trim(line.substr(keyWithSeparator.size()));
  }
  return std::nullopt;
}

std::string formatIdList(const std::vector<int>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ids[i]);
    if (j > i) out += '-' + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace gantry::detect
