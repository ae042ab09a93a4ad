#include "common/config/conf_reader.h"

#include <cctype>
#include <fstream>
#include <sstream>

#include "common/config/value_parse.h"

namespace gantry::config {
namespace {

namespace fs = std::filesystem;

bool isSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Removes the comment from one physical line, honouring "\#" and quotes.
std::string stripComment(std::string_view raw) {
  std::string out;
  bool quoted = false;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\\' && i + 1 < raw.size() && raw[i + 1] == '#') {
      out.push_back('#');
      ++i;
      continue;
    }
    if (c == '"') quoted = !quoted;
    if (c == '#' && !quoted) break;
    out.push_back(c);
  }
  while (!out.empty() && (isSpace(out.back()))) out.pop_back();
  return out;
}

class Reader {
 public:
  Reader(const ReadOptions& options, ReadResult& result) : options_(options), result_(result) {}

  void readFile(const fs::path& file, int depth, const std::string& fromFile, int fromLine) {
    std::string name = file.string();
    std::error_code ec;
    auto size = fs::file_size(file, ec);
    std::ifstream in(file, std::ios::binary);
    if (ec || !in) {
      if (fromFile.empty()) {
        result_.diagnostics.error(name, 0, "cannot open the file");
      } else {
        result_.diagnostics.error(fromFile, fromLine, "Include: cannot open \"" + name + "\"");
      }
      return;
    }
    if (size > options_.maxFileBytes) {
      result_.diagnostics.error(name, 0, "the file is larger than " + std::to_string(options_.maxFileBytes) + " bytes");
      return;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    fs::path canonical = fs::weakly_canonical(file, ec);
    std::string key = ec ? name : canonical.string();
    for (const auto& open : openFiles_) {
      if (open == key) {
        result_.diagnostics.error(fromFile, fromLine, "Include of \"" + name + "\" forms a cycle");
        return;
      }
    }
    openFiles_.push_back(key);
    readText(buffer.str(), name, depth);
    openFiles_.pop_back();
  }

  void readText(std::string_view text, const std::string& fileName, int depth) {
    int lineNumber = 0;
    std::string logical;
    int logicalStart = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
      std::size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view raw = text.substr(pos, end - pos);
      if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
      ++lineNumber;
      std::string stripped = stripComment(raw);
      if (logical.empty()) logicalStart = lineNumber;
      bool continues = !stripped.empty() && stripped.back() == '\\';
      if (continues) stripped.pop_back();
      if (!logical.empty()) logical += ' ';
      logical += stripped;
      if (!continues) {
        handleLogicalLine(logical, fileName, logicalStart, depth);
        logical.clear();
      }
      if (end == text.size()) break;
      pos = end + 1;
    }
    if (!logical.empty()) handleLogicalLine(logical, fileName, logicalStart, depth);
  }

 private:
  void handleLogicalLine(const std::string& text, const std::string& fileName, int line, int depth) {
    std::size_t i = 0;
    auto skipSpace = [&] {
      while (i < text.size() && isSpace(text[i])) ++i;
    };
    skipSpace();
    if (i == text.size()) return;

    // "Include PATH" is the only form without '='.
    std::size_t wordEnd = i;
    while (wordEnd < text.size() && !isSpace(text[wordEnd]) && text[wordEnd] != '=') ++wordEnd;
    std::size_t afterWord = wordEnd;
    while (afterWord < text.size() && isSpace(text[afterWord])) ++afterWord;
    if (iequals(std::string_view(text).substr(i, wordEnd - i), "include") &&
        (afterWord >= text.size() || text[afterWord] != '=')) {
      handleInclude(text.substr(afterWord), fileName, line, depth);
      return;
    }

    ConfLine out{fileName, line, {}};
    while (i < text.size()) {
      std::size_t keyStart = i;
      while (i < text.size() && !isSpace(text[i]) && text[i] != '=') ++i;
      std::string key = text.substr(keyStart, i - keyStart);
      skipSpace();
      if (key.empty() || i >= text.size() || text[i] != '=') {
        std::string found = key.empty() ? text.substr(keyStart, 20) : key;
        result_.diagnostics.error(fileName, line, "expected Key=Value, found \"" + found + "\"");
        return;
      }
      ++i;  // '='
      skipSpace();
      std::string value;
      if (i < text.size() && text[i] == '"') {
        std::size_t close = text.find('"', i + 1);
        if (close == std::string::npos) {
          result_.diagnostics.error(fileName, line, key + ": the quoted value has no closing '\"'");
          return;
        }
        value = text.substr(i + 1, close - i - 1);
        i = close + 1;
      } else {
        std::size_t valueStart = i;
        while (i < text.size() && !isSpace(text[i])) ++i;
        value = text.substr(valueStart, i - valueStart);
      }
      out.pairs.push_back(KeyValue{std::move(key), std::move(value)});
      skipSpace();
    }
    result_.lines.push_back(std::move(out));
  }

  void handleInclude(std::string target, const std::string& fileName, int line, int depth) {
    while (!target.empty() && isSpace(target.back())) target.pop_back();
    if (target.size() >= 2 && target.front() == '"' && target.back() == '"') target = target.substr(1, target.size() - 2);
    if (target.empty()) {
      result_.diagnostics.error(fileName, line, "Include needs a file name");
      return;
    }
    if (!options_.followIncludes) {
      result_.diagnostics.error(fileName, line, "Include is not allowed here");
      return;
    }
    if (depth + 1 > options_.maxIncludeDepth) {
      result_.diagnostics.error(fileName, line,
                                "Include nests deeper than " + std::to_string(options_.maxIncludeDepth) + " files");
      return;
    }
    fs::path path(target);
    if (path.is_relative()) path = fs::path(fileName).parent_path() / path;
    readFile(path, depth + 1, fileName, line);
  }

  const ReadOptions& options_;
  ReadResult& result_;
  std::vector<std::string> openFiles_;
};

}  // namespace

ReadResult readConfFile(const std::filesystem::path& file, const ReadOptions& options) {
  ReadResult result;
  Reader reader(options, result);
  reader.readFile(file, 0, "", 0);
  return result;
}

ReadResult readConfText(std::string_view text, const std::string& fileName, const ReadOptions& options) {
  ReadResult result;
  Reader reader(options, result);
  reader.readText(text, fileName, 0);
  return result;
}

}  // namespace gantry::config
