// sacct's columns: the field names of --format (case-insensitive, a name
// may be shortened to its first letters, "%N" sets the width), Slurm's
// default widths, and each field's text from an accounting record.
//
// Derived fields: Elapsed/ElapsedRaw from start and end (now for a running
// job); MaxRSS, MaxRSSNode, MaxRSSTask, AveRSS from the mem entries of
// TRESUsageInMax/MaxNode/MaxTask/Ave; AveCPU, MinCPU, TotalCPU from the cpu
// entries of TRESUsageInAve/Min/Tot. Memory prints as sacct does (exact
// units: "628748K"), or in the unit of --units.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/accounting_table.h"
#include "common/util/result.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::cli {

struct SacctField {
  std::string name;   // as printed in the header: "JobID", "MaxRSS"
  TableColumn column;  // title and width
};

// JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode.
std::vector<SacctField> defaultSacctFields();

// Every --format value given, in order, each a comma list; Invalid naming
// an unknown field or a bad width.
Result<std::vector<SacctField>> parseSacctFields(const std::vector<std::string>& formats);

// Every field name, in --helpformat's order.
std::vector<std::string> sacctFieldNames();

// --helpformat: the field names, several to a line.
std::string sacctHelpFormat();

struct SacctCellContext {
  int64_t now = 0;
  std::optional<char> units;  // --units: K, M, G, T or P
};

std::string sacctCell(const std::string& field, const v1::AccountingJob& job, const SacctCellContext& context);

// The table: header (unless style says not) and one line per record.
std::string renderSacct(const std::vector<SacctField>& fields, const std::vector<v1::AccountingJob>& jobs,
                        const TableStyle& style, const SacctCellContext& context);

// Gives each record without a group name the name of its gid, as
// `groupName` says (the number when the gid has none): the store keeps the
// gid, and sacct names it from this host's group database as Slurm's does.
void fillGroupNames(std::vector<v1::AccountingJob>& jobs, const std::function<std::string(uint32_t)>& groupName);

// A TRES string's value for one TRES ("mem" of "cpu=00:00:11,mem=628748K"),
// nullopt when absent.
std::optional<std::string> tresEntry(const std::string& tres, const std::string& name);

// sacct's memory text: bytes divided by 1024 while the value stays a
// multiple of 512 (643837952 -> "628748K", 1536 -> "1.50K"), or brought to
// `unit` when given (643837952, 'M' -> "614.01M").
std::string formatMemory(double bytes, std::optional<char> unit);

}  // namespace gantry::cli
