#include "cli/getopt_scan.h"

#include <algorithm>

namespace gantry::cli {
namespace {

enum class Argument {
  kNone,      // a flag; "--flag=value" is still handed to CLI11, which checks the value
  kRequired,  // the value is attached or the next word, whatever it looks like
  kOptional,  // CLI11's expected(0, 1): attached, or the next word unless it is an option
};

Argument argumentOf(const CLI::Option& option) {
  if (option.get_expected_max() == 0) return Argument::kNone;  // CLI11's flags expect no value
  if (option.get_expected_min() == 0) return Argument::kOptional;
  return Argument::kRequired;
}

bool looksLikeOption(const std::string& word) { return word.size() > 1 && word.front() == '-'; }

// How CLI11 is told about an option: by its first long name when it has one.
std::string spelled(const CLI::Option& option, const std::string* value) {
  if (!option.get_lnames().empty()) {
    std::string word = "--" + option.get_lnames().front();
    return value == nullptr ? word : word + "=" + *value;
  }
  std::string word = "-" + option.get_snames().front();
  return value == nullptr ? word : word + *value;
}

class Scanner {
 public:
  Scanner(const CLI::App& app, const std::vector<std::string>& words)
      : options_(app.get_options([](const CLI::Option* option) { return option->nonpositional(); })),
        words_(words) {}

  Result<ScannedLine> run(OperandOrder order) {
    while (next_ < words_.size()) {
      const std::string& word = words_[next_++];
      if (word == "--") {
        takeRest();
        break;
      }
      if (!looksLikeOption(word)) {
        line_.operands.push_back(word);
        if (order == OperandOrder::kOptionsFirst) {
          takeRest();
          break;
        }
        continue;
      }
      Status read = word.starts_with("--") ? readLong(word) : readShortBundle(word);
      if (!read) return read.failure();
    }
    return line_;
  }

 private:
  void takeRest() {
    line_.operands.insert(line_.operands.end(), words_.begin() + static_cast<long>(next_), words_.end());
    next_ = words_.size();
  }

  // Exact name first; otherwise the one option whose long name the word
  // begins (aliases of one option are no ambiguity).
  Result<const CLI::Option*> findLong(const std::string& word, const std::string& name) const {
    std::vector<const CLI::Option*> prefixed;
    for (const CLI::Option* option : options_) {
      const auto& names = option->get_lnames();
      if (std::find(names.begin(), names.end(), name) != names.end()) return option;
      bool begins = std::any_of(names.begin(), names.end(),
                                [&name](const std::string& candidate) { return candidate.starts_with(name); });
      if (begins) prefixed.push_back(option);
    }
    if (prefixed.size() == 1) return prefixed.front();
    if (prefixed.empty()) return Error{"unrecognized option '" + word + "'"};
    std::string message = "option '" + word + "' is ambiguous; possibilities:";
    for (const CLI::Option* option : prefixed) {
      for (const std::string& candidate : option->get_lnames()) {
        if (candidate.starts_with(name)) message += " '--" + candidate + "'";
      }
    }
    return Error{message};
  }

  Status readLong(const std::string& word) {
    size_t equals = word.find('=');
    std::string name = word.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    auto found = findLong(word, name);
    if (!found) return found.failure();
    const CLI::Option& option = **found;
    if (equals != std::string::npos) {
      std::string value = word.substr(equals + 1);
      line_.options.push_back(spelled(option, &value));
      return okStatus();
    }
    switch (argumentOf(option)) {
      case Argument::kNone:
        line_.options.push_back(spelled(option, nullptr));
        return okStatus();
      case Argument::kOptional:
        return takeOptionalValue(option);
      case Argument::kRequired:
        if (next_ >= words_.size()) {
          return Error{"option '--" + option.get_lnames().front() + "' requires an argument"};
        }
        line_.options.push_back(spelled(option, &words_[next_++]));
        return okStatus();
    }
    return okStatus();
  }

  // "-lN2": -l, then -N with the value 2.
  Status readShortBundle(const std::string& word) {
    for (size_t at = 1; at < word.size(); ++at) {
      std::string letter(1, word[at]);
      auto match = std::find_if(options_.begin(), options_.end(), [&letter](const CLI::Option* option) {
        const auto& names = option->get_snames();
        return std::find(names.begin(), names.end(), letter) != names.end();
      });
      if (match == options_.end()) return Error{"invalid option -- '" + letter + "'"};
      const CLI::Option& option = **match;
      Argument argument = argumentOf(option);
      if (argument == Argument::kNone) {
        line_.options.push_back(spelled(option, nullptr));
        continue;
      }
      std::string attached = word.substr(at + 1);
      if (!attached.empty()) {
        line_.options.push_back(spelled(option, &attached));
        return okStatus();
      }
      if (argument == Argument::kOptional) return takeOptionalValue(option);
      if (next_ >= words_.size()) return Error{"option requires an argument -- '" + letter + "'"};
      line_.options.push_back(spelled(option, &words_[next_++]));
      return okStatus();
    }
    return okStatus();
  }

  Status takeOptionalValue(const CLI::Option& option) {
    if (next_ < words_.size() && !looksLikeOption(words_[next_]) && words_[next_] != "--") {
      line_.options.push_back(spelled(option, &words_[next_++]));
    } else {
      line_.options.push_back(spelled(option, nullptr));
    }
    return okStatus();
  }

  std::vector<const CLI::Option*> options_;
  const std::vector<std::string>& words_;
  size_t next_ = 0;
  ScannedLine line_;
};

}  // namespace

Result<ScannedLine> scanCommandLine(const CLI::App& app, const std::vector<std::string>& words,
                                    OperandOrder order) {
  return Scanner(app, words).run(order);
}

}  // namespace gantry::cli
