// The column engine shared by squeue and sinfo: parsing "-o" format strings
// ("%.18i %9P %#N") and "-O" field lists ("JobID:10,Name:.20"), and
// rendering rows through a table of field definitions.
//
// Width rules follow Slurm's commands: a width pads and truncates, "." means
// right-justified, "-" or nothing left-justified, no width prints the value
// as it is, and "#" (an extension Slurm uses in its defaults) sizes the
// column to its longest value.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::cli {

struct FieldSpec {
  std::string key;          // the code letter for "-o", the lowercased name for "-O"
  std::string literalBefore;  // text printed before the field ("-o" only)
  int width = 0;            // 0: as wide as the value
  bool rightJustify = false;
  bool autoWidth = false;   // "#": as wide as the widest value in the column
  std::string suffix;       // "-O" suffix text after the field
};

// A column a command offers, for its documentation: the "-o" letter ("" for
// none), the "-O" name and the header it prints.
struct ColumnName {
  std::string code;
  std::string name;
  std::string header;
};

struct LineFormat {
  std::vector<FieldSpec> fields;
  std::string trailingText;  // literal text after the last "-o" field
};

// Parses a "-o" string. `isKnownCode` says which letters exist; the error
// names `optionName`, the bad code and the whole format.
Result<LineFormat> parsePercentFormat(const std::string& format,
                                      const std::function<bool(const std::string&)>& isKnownCode,
                                      const std::string& optionName);

// Parses a "-O" list: "Name[:[.][width][suffix]]" separated by commas;
// names are case-insensitive. A missing width is `defaultWidth`; 0 means
// as wide as the value.
Result<LineFormat> parseFieldList(const std::string& list,
                                  const std::function<bool(const std::string&)>& isKnownName,
                                  const std::string& optionName, int defaultWidth = 20);

// Pads/truncates one value according to `spec` and a resolved width.
std::string fitToWidth(const std::string& value, int width, bool rightJustify);

// Renders a header (when asked) and one line per row. `cell(key, row)`
// gives a row's text for a field; `header(key)` its column title.
template <typename Row>
std::string renderTable(const LineFormat& format, const std::vector<Row>& rows, bool withHeader,
                        const std::function<std::string(const std::string&)>& header,
                        const std::function<std::string(const std::string&, const Row&)>& cell) {
  std::vector<std::vector<std::string>> cells;
  for (const Row& row : rows) {
    std::vector<std::string> line;
    for (const FieldSpec& field : format.fields) line.push_back(cell(field.key, row));
    cells.push_back(std::move(line));
  }
  std::vector<int> widths;
  for (size_t i = 0; i < format.fields.size(); ++i) {
    const FieldSpec& field = format.fields[i];
    int width = field.width;
    if (field.autoWidth) {
      size_t widest = withHeader ? header(field.key).size() : 0;
      for (const auto& line : cells) widest = std::max(widest, line[i].size());
      width = std::max(width, static_cast<int>(widest));
    }
    widths.push_back(width);
  }
  auto renderLine = [&](const std::function<std::string(size_t)>& text) {
    std::string out;
    for (size_t i = 0; i < format.fields.size(); ++i) {
      const FieldSpec& field = format.fields[i];
      out += field.literalBefore;
      out += fitToWidth(text(i), widths[i], field.rightJustify);
      out += field.suffix;
    }
    out += format.trailingText;
    return out + "\n";
  };
  std::string out;
  if (withHeader) out += renderLine([&](size_t i) { return header(format.fields[i].key); });
  for (const auto& line : cells) out += renderLine([&](size_t i) { return line[i]; });
  return out;
}

}  // namespace gantry::cli
