#include "cli/accounting_table.h"

#include <cstdlib>

namespace gantry::cli {

std::string fitCell(const std::string& value, int width, CellKind kind) {
  size_t size = static_cast<size_t>(std::abs(width));
  std::string text = value;
  if (text.size() > size && kind != CellKind::Number) {
    text.resize(size);
    if (kind == CellKind::Text && size > 0) text.back() = '+';
  }
  if (text.size() >= size) return text;
  std::string padding(size - text.size(), ' ');
  return width < 0 ? text + padding : padding + text;
}

std::string renderAccountingTable(const std::vector<TableColumn>& columns,
                                  const std::vector<std::vector<std::string>>& rows, const TableStyle& style) {
  auto line = [&](auto cellOf) {
    std::string out;
    for (size_t i = 0; i < columns.size(); ++i) {
      std::string cell = cellOf(i);
      if (style.parsable == Parsable::No) {
        out += cell + " ";
      } else {
        out += cell;
        if (style.parsable == Parsable::Trailing || i + 1 < columns.size()) out += "|";
      }
    }
    return out + "\n";
  };
  std::string out;
  if (style.header) {
    out += line([&](size_t i) {
      const TableColumn& column = columns[i];
      if (style.parsable != Parsable::No) return column.title;
      // Titles are cut plainly, without '+'.
      return fitCell(column.title, column.width, CellKind::Date);
    });
    if (style.parsable == Parsable::No) {
      out += line([&](size_t i) { return std::string(static_cast<size_t>(std::abs(columns[i].width)), '-'); });
    }
  }
  for (const auto& row : rows) {
    out += line([&](size_t i) {
      const std::string& value = i < row.size() ? row[i] : std::string();
      return style.parsable == Parsable::No ? fitCell(value, columns[i].width, columns[i].kind) : value;
    });
  }
  return out;
}

}  // namespace gantry::cli
