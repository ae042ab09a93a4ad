#include "cli/usage_text.h"

#include <algorithm>
#include <map>
#include <vector>

namespace gantry::cli {
namespace {

constexpr size_t kDescriptionColumn = 30;
constexpr size_t kLineWidth = 80;

// What the program takes after its options, in the two usage forms.
struct Operands {
  const char* helpForm;
  const char* usageForm;
};

Operands operandsOf(const std::string& command) {
  if (command == "sinfo" || command == "squeue" || command == "sacct") return {"[OPTIONS]", ""};
  if (command == "scancel") return {"[OPTIONS] [job_id[_array_id][.step_id]]", "[job_id[_array_id][.step_id]...]"};
  if (command == "sbatch") return {"[OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]", "script [args...]"};
  if (command == "salloc") return {"[OPTIONS(0)...] [ : [OPTIONS(N)...]] [command(0) [args(0)...]]", "[command [args...]]"};
  return {"[OPTIONS(0)...] [ : [OPTIONS(N)...]] executable(0) [args(0)...]", "executable [args...]"};
}

bool takesValue(const CLI::Option& option) { return option.get_expected_max() > 0; }

// The value's name as declared with type_name(); CLI11's default "TEXT"
// reads better as the option's own name.
std::string valueName(const CLI::Option& option) {
  std::string name = option.get_type_name();
  if (name.empty() || name == "TEXT") return option.get_lnames().empty() ? "value" : option.get_lnames().front();
  return name;
}

std::string longName(const CLI::Option& option) {
  return option.get_lnames().empty() ? std::string() : option.get_lnames().front();
}

// "-N, --nodes=N", "    --gres=list", "    --exclusive[=user|mcs|topo]".
std::string optionSpelling(const CLI::Option& option) {
  std::string shortPart = option.get_snames().empty() ? "    " : "-" + option.get_snames().front() + ", ";
  std::string longPart;
  if (!option.get_lnames().empty()) {
    longPart = "--" + longName(option);
    if (takesValue(option)) {
      longPart += "=" + valueName(option);
    } else {
      longPart += option.get_type_name();  // a flag's optional value, e.g. "[=user|mcs|topo]"
    }
  } else if (takesValue(option)) {
    shortPart = "-" + option.get_snames().front() + " " + valueName(option);
  }
  return shortPart + longPart;
}

// The words of `text`; a word too long for the description column is cut
// after its '|' so that a list of choices still wraps.
std::vector<std::string> wordsOf(const std::string& text) {
  constexpr size_t kRoom = kLineWidth - kDescriptionColumn;
  std::vector<std::string> words;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = std::min(text.find(' ', at), text.size());
    std::string word = text.substr(at, end - at);
    while (word.size() > kRoom) {
      size_t bar = word.rfind('|', kRoom - 1);
      if (bar == std::string::npos) break;
      words.push_back(word.substr(0, bar + 1));
      word = word.substr(bar + 1);
    }
    if (!word.empty()) words.push_back(word);
    at = end + 1;
  }
  return words;
}

// `first`, then the pieces on lines of kLineWidth (a piece is never split),
// every line after the first indented by `indent`.
std::string wrapped(const std::string& first, const std::vector<std::string>& pieces, size_t indent) {
  std::string out = first;
  size_t column = out.size();
  bool lineStart = true;
  for (const std::string& piece : pieces) {
    if (!lineStart && column + 1 + piece.size() > kLineWidth) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
      lineStart = true;
    }
    if (!lineStart) {
      out += ' ';
      ++column;
    }
    out += piece;
    column += piece.size();
    lineStart = false;
  }
  return out + "\n";
}

std::string helpLine(const CLI::Option& option) {
  std::string left = "  " + optionSpelling(option);
  left += left.size() < kDescriptionColumn ? std::string(kDescriptionColumn - left.size(), ' ') : " ";
  return wrapped(left, wordsOf(option.get_description()), kDescriptionColumn);
}

using Sections = std::vector<std::pair<std::string, std::vector<const CLI::Option*>>>;

// Where a section goes: CLI11's default group ("Options", Slurm's "Parallel
// run options") first, then the others, the ignored options, and the help
// options last as in Slurm.
int sectionRank(const std::string& group) {
  if (group == "Options") return 0;
  if (group == kIgnoredSection) return 2;
  if (group == kHelpSection) return 3;
  return 1;
}

// Options by section, each sorted by long name as Slurm lists them.
Sections sections(const CLI::App& app) {
  std::map<std::string, std::vector<const CLI::Option*>> grouped;
  for (const CLI::Option* option : app.get_options([](const CLI::Option* o) { return o->nonpositional(); })) {
    if (option->get_group().empty()) continue;  // hidden
    grouped[option->get_group()].push_back(option);
  }
  for (auto& [name, options] : grouped) {
    std::sort(options.begin(), options.end(), [](const CLI::Option* a, const CLI::Option* b) {
      return longName(*a) < longName(*b);
    });
  }
  Sections ordered(grouped.begin(), grouped.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return sectionRank(a.first) < sectionRank(b.first);
  });
  return ordered;
}

// The launchers' commands are the only ones that take a job's options.
bool launchesJobs(const std::string& command) {
  return command == "sbatch" || command == "srun" || command == "salloc";
}

// CLI11's default group is "Options"; Slurm's launchers call it this, and
// its query commands list those options under the usage line untitled.
std::string sectionTitle(const std::string& group, const std::string& command) {
  if (group != "Options") return group;
  return launchesJobs(command) ? "Parallel run options" : "";
}

}  // namespace

std::string renderHelp(const CLI::App& app, const std::string& command) {
  std::string out = "Usage: " + command + " " + operandsOf(command).helpForm + "\n";
  for (const auto& [group, options] : sections(app)) {
    std::string title = sectionTitle(group, command);
    if (!title.empty()) out += "\n" + title + ":\n";
    for (const CLI::Option* option : options) out += helpLine(*option);
  }
  return out;
}

std::string renderOptionTable(const CLI::App& app) {
  std::string out = "| option | status | what it does |\n|---|---|---|\n";
  for (const auto& [group, options] : sections(app)) {
    const char* status = group == kIgnoredSection ? "accepted and ignored with a warning" : "supported";
    for (const CLI::Option* option : options) {
      std::string spelling = optionSpelling(*option);
      size_t start = spelling.find_first_not_of(' ');
      std::string description = option->get_description();
      for (size_t bar = description.find('|'); bar != std::string::npos; bar = description.find('|', bar + 2)) {
        description.replace(bar, 1, "\\|");
      }
      std::string shown = spelling.substr(start);
      for (size_t bar = shown.find('|'); bar != std::string::npos; bar = shown.find('|', bar + 2)) {
        shown.replace(bar, 1, "\\|");
      }
      out += "| `" + shown + "` | " + status + " | " + description + " |\n";
    }
  }
  return out;
}

std::string renderUsage(const CLI::App& app, const std::string& command) {
  std::vector<std::string> items;
  for (const auto& [group, options] : sections(app)) {
    if (group == kHelpSection) continue;
    for (const CLI::Option* option : options) {
      std::string item;
      if (!option->get_snames().empty()) {
        item = "-" + option->get_snames().front();
        if (takesValue(*option)) item += " " + valueName(*option);
      } else {
        item = "--" + longName(*option);
        item += takesValue(*option) ? "=" + valueName(*option) : option->get_type_name();
      }
      items.push_back("[" + item + "]");
    }
  }
  for (const std::string& word : wordsOf(operandsOf(command).usageForm)) items.push_back(word);
  std::string first = "Usage: " + command + " ";
  return wrapped(first, items, first.size());
}

}  // namespace gantry::cli
