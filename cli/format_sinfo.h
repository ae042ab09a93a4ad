// sinfo's views: the partition summary, the node-oriented list (-N), the
// reasons list (-R), with "-o" codes and "-O" names. A node with no reason
// of its own but something drained (DEGRADED) shows its DrainedTRES list
// as the reason, set by root.
//
// Rows group nodes the way Slurm does: nodes whose displayed values are all
// equal (other than node list and counts) share a row. Partition fields
// split rows per partition; a format without them lists each node once.
#pragma once

#include <string>
#include <vector>

#include "cli/format_fields.h"
#include "common/util/result.h"
#include "gantry/v1/types.pb.h"

namespace gantry::cli {

enum class SinfoView { kPartitions, kNodes, kReasons };

// -s/--summarize and -l/--long: other default columns, as Slurm's.
struct SinfoDefaults {
  bool summarize = false;  // one line per partition, node counts as A/I/O/T (partition view only)
  bool longList = false;
};

// The format Slurm uses for each view.
LineFormat defaultSinfoFormat(SinfoView view, SinfoDefaults defaults = {});

// "-o/--format" codes: %P %R %a %l %s %r %g %h %D %F %T %t %N %c %m %d %w
// %G %E %z %C %u %H %f %X %Y %Z %o.
Result<LineFormat> parseSinfoFormat(const std::string& format);

// "-O/--Format" names: NodeList, Partition, PartitionName, Available, Time,
// Nodes, StateLong, StateCompact, StateComplete, CPUs, CPUsState, Memory, AllocMem, Gres,
// GresUsed, Reason, User, Timestamp, Features, SocketCoreThread, Sockets,
// Cores, Threads, NodeAddr, NodeHost, NodeAIOT, Size, Root, Groups,
// OverSubscribe, Disk, Weight.
Result<LineFormat> parseSinfoFieldList(const std::string& list);

// Every column, in the order of the table.
std::vector<ColumnName> sinfoColumns();

struct SinfoRenderOptions {
  SinfoView view = SinfoView::kPartitions;
  bool header = true;
  // Node filters (-t, -n, -r, -d) removed nodes: a partition left with
  // none is not listed, as in Slurm.
  bool nodesFiltered = false;
};

// Nodes and partitions as the controller listed them; partition membership
// comes from each partition's node expression.
std::string renderSinfo(const LineFormat& format, const std::vector<gantry::v1::Partition>& partitions,
                        const std::vector<gantry::v1::Node>& nodes,
                        const SinfoRenderOptions& options);

}  // namespace gantry::cli
