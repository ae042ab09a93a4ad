// The tables of sacct and sacctmgr, printed the way Slurm's accounting
// commands print them: a header line and a line of dashes, then one line
// per row, every column followed by one space; a positive width right-
// justifies, a negative one left-justifies. Text longer than its column is
// cut and ends in '+'; numbers are never cut; dates are cut plainly.
// -p ends every column with '|', -P puts '|' only between columns, and
// neither pads, cuts or prints the dashes.
#pragma once

#include <string>
#include <vector>

namespace gantry::cli {

enum class CellKind { Text, Number, Date };

struct TableColumn {
  std::string title;
  int width = 10;  // negative: left-justified
  CellKind kind = CellKind::Text;
};

enum class Parsable { No, Trailing, NoTrailing };  // default, -p, -P

struct TableStyle {
  bool header = true;
  Parsable parsable = Parsable::No;
};

std::string renderAccountingTable(const std::vector<TableColumn>& columns,
                                  const std::vector<std::vector<std::string>>& rows, const TableStyle& style);

// One padded cell (exposed for tests).
std::string fitCell(const std::string& value, int width, CellKind kind);

}  // namespace gantry::cli
