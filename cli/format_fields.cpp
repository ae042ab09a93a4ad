#include "cli/format_fields.h"

#include <cctype>

namespace gantry::cli {
namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Reads digits at `pos` into `width`; false when there are none.
bool readWidth(const std::string& text, size_t& pos, int& width) {
  size_t start = pos;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
  if (pos == start) return false;
  width = std::stoi(text.substr(start, std::min<size_t>(pos - start, 6)));
  return true;
}

}  // namespace

Result<LineFormat> parsePercentFormat(const std::string& format,
                                      const std::function<bool(const std::string&)>& isKnownCode,
                                      const std::string& optionName) {
  LineFormat line;
  std::string literal;
  for (size_t pos = 0; pos < format.size();) {
    char c = format[pos];
    if (c != '%') {
      literal += c;
      ++pos;
      continue;
    }
    ++pos;
    if (pos < format.size() && format[pos] == '%') {  // "%%" prints a percent sign
      literal += '%';
      ++pos;
      continue;
    }
    FieldSpec field;
    while (pos < format.size() && (format[pos] == '.' || format[pos] == '-' || format[pos] == '#')) {
      if (format[pos] == '.') field.rightJustify = true;
      if (format[pos] == '#') field.autoWidth = true;
      ++pos;
    }
    readWidth(format, pos, field.width);
    if (pos >= format.size()) {
      return Error{optionName + ": format '" + format + "' ends inside a field specification"};
    }
    field.key = std::string(1, format[pos++]);
    if (!isKnownCode(field.key)) {
      return Error{optionName + ": unknown field code '%" + field.key + "' in format '" + format +
                   "'"};
    }
    field.literalBefore = std::move(literal);
    literal.clear();
    line.fields.push_back(std::move(field));
  }
  line.trailingText = std::move(literal);
  if (line.fields.empty()) return Error{optionName + ": format '" + format + "' has no fields"};
  return line;
}

Result<LineFormat> parseFieldList(const std::string& list,
                                  const std::function<bool(const std::string&)>& isKnownName,
                                  const std::string& optionName, int defaultWidth) {
  LineFormat line;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? comma : comma - start);
    start = comma == std::string::npos ? list.size() + 1 : comma + 1;
    if (item.empty()) continue;
    FieldSpec field;
    size_t colon = item.find(':');
    field.key = lower(item.substr(0, colon));
    field.width = defaultWidth;
    if (colon != std::string::npos) {
      size_t pos = colon + 1;
      if (pos < item.size() && item[pos] == '.') {
        field.rightJustify = true;
        ++pos;
      }
      if (!readWidth(item, pos, field.width)) field.width = defaultWidth;
      field.suffix = item.substr(pos);
    }
    if (!isKnownName(field.key)) {
      return Error{optionName + ": unknown field '" + item.substr(0, colon) + "' in '" + list + "'"};
    }
    line.fields.push_back(std::move(field));
  }
  if (line.fields.empty()) return Error{optionName + ": field list '" + list + "' is empty"};
  return line;
}

std::string fitToWidth(const std::string& value, int width, bool rightJustify) {
  if (width <= 0) return value;
  size_t w = static_cast<size_t>(width);
  if (value.size() >= w) return value.substr(0, w);
  std::string padding(w - value.size(), ' ');
  return rightJustify ? padding + value : value + padding;
}

}  // namespace gantry::cli
