#include "cli/sbatch_script.h"

#include <cctype>
#include <sstream>

namespace gantry::cli {
namespace {

constexpr std::string_view kDirectivePrefix = "#SBATCH";

std::string_view trimLeft(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  return text;
}

}  // namespace

Result<std::vector<std::string>> splitShellWords(const std::string& text) {
  std::vector<std::string> words;
  std::string current;
  bool inWord = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && i + 1 < text.size()) {  // in either quote, as Slurm's sbatch reads it
        current += text[++i];
      } else {
        current += c;
      }
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (inWord) words.push_back(current);
      current.clear();
      inWord = false;
      continue;
    }
    inWord = true;
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\' && i + 1 < text.size()) {
      current += text[++i];
    } else {
      current += c;
    }
  }
  if (quote != 0) return Error{std::string("unterminated ") + quote + " quote"};
  if (inWord) words.push_back(current);
  return words;
}

Result<std::vector<Directive>> readDirectives(const std::string& scriptText) {
  std::vector<Directive> directives;
  std::istringstream in(scriptText);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string_view text = trimLeft(line);
    if (number == 1 && text.substr(0, 2) == "#!") continue;
    if (text.empty()) continue;
    if (text.front() != '#') break;  // the first command ends the directives
    if (text.substr(0, kDirectivePrefix.size()) != kDirectivePrefix) continue;
    std::string_view rest = text.substr(kDirectivePrefix.size());
    // "#SBATCHX" is some other comment, not a directive.
    if (!rest.empty() && !std::isspace(static_cast<unsigned char>(rest.front()))) continue;
    auto words = splitShellWords(std::string(rest));
    if (!words) {
      return Error{"line " + std::to_string(number) + ": #SBATCH directive: " + words.error()};
    }
    Directive directive{number, {}};
    for (std::string& word : *words) {
      if (!word.empty() && word.front() == '#') break;  // trailing comment
      directive.words.push_back(std::move(word));
    }
    if (!directive.words.empty()) directives.push_back(std::move(directive));
  }
  return directives;
}

std::string wrapCommand(const std::string& command) { return "#!/bin/sh\n" + command + "\n"; }

}  // namespace gantry::cli
