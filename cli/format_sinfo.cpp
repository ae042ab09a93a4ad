#include "cli/format_sinfo.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "cli/node_state.h"
#include "cli/node_state_filter.h"
#include "cli/time_format.h"
#include "common/hostlist/hostlist.h"

namespace gantry::cli {
namespace {

using gantry::v1::Node;
using gantry::v1::Partition;

// One output line: a partition (or none) and the nodes sharing its values.
struct SinfoRow {
  const Partition* partition = nullptr;
  std::vector<const Node*> nodes;
};

enum class Scope { kPartition, kNode, kAggregate };

struct SinfoField {
  const char* code;
  const char* name;  // lowercase "-O" name
  const char* header;
  Scope scope;
  // For kPartition fields: the partition's value; for kNode: the value of
  // the row's first node (rows group equal values); for kAggregate: the row.
  std::function<std::string(const SinfoRow&)> value;
};

std::string orNull(const std::string& text) { return text.empty() ? "(null)" : text; }

// A node with no reason of its own that is DEGRADED (something drained on
// it) is listed by -R with its DrainedTRES list as the reason, set by root.
bool reasonIsDrainedTres(const Node& n) {
  bool degraded = (n.state_flags() & static_cast<uint32_t>(gantry::v1::NODE_FLAG_DEGRADED)) != 0;
  return n.reason().empty() && degraded && !n.drained_tres().empty();
}

std::string reasonOf(const Node& n) { return reasonIsDrainedTres(n) ? n.drained_tres() : n.reason(); }

std::string reasonUserOf(const Node& n) {
  if (reasonIsDrainedTres(n)) return "root";
  return n.reason_user().empty() ? "Unknown" : n.reason_user();
}

const Node* firstNode(const SinfoRow& row) { return row.nodes.empty() ? nullptr : row.nodes[0]; }

// A per-node value, "n/a" for a partition without nodes.
std::function<std::string(const SinfoRow&)> nodeValue(std::function<std::string(const Node&)> get) {
  return [get](const SinfoRow& row) {
    const Node* node = firstNode(row);
    return node ? get(*node) : std::string("n/a");
  };
}

std::function<std::string(const SinfoRow&)> partitionValue(
    std::function<std::string(const Partition&)> get) {
  return [get](const SinfoRow& row) {
    return row.partition ? get(*row.partition) : std::string("n/a");
  };
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string cpuStates(const SinfoRow& row) {
  int64_t allocated = 0, idle = 0, other = 0, total = 0;
  for (const Node* node : row.nodes) {
    total += node->cpus();
    if (nodeUnusable(*node)) {
      other += node->cpus();
    } else {
      allocated += node->alloc_cpus();
      idle += node->cpus() - node->alloc_cpus();
    }
  }
  return std::to_string(allocated) + "/" + std::to_string(idle) + "/" + std::to_string(other) +
         "/" + std::to_string(total);
}

// Nodes allocated (wholly or in part) / idle / other (down, drained,
// failing) / total, as sinfo's %F.
std::string nodeStates(const SinfoRow& row) {
  size_t allocated = 0, idle = 0, other = 0;
  for (const Node* node : row.nodes) {
    if (nodeUnusable(*node)) {
      ++other;
    } else if (node->alloc_cpus() > 0) {
      ++allocated;
    } else {
      ++idle;
    }
  }
  return std::to_string(allocated) + "/" + std::to_string(idle) + "/" + std::to_string(other) + "/" +
         std::to_string(row.nodes.size());
}

std::string nodeNames(const SinfoRow& row) {
  std::vector<std::string> names;
  for (const Node* node : row.nodes) names.push_back(node->name());
  return hostlist::compress(names);
}

const std::vector<SinfoField>& sinfoFields() {
  static const std::vector<SinfoField> fields = {
      {"P", "partition", "PARTITION", Scope::kPartition,
       partitionValue([](const Partition& p) { return p.name() + (p.is_default() ? "*" : ""); })},
      {"R", "partitionname", "PARTITION", Scope::kPartition,
       partitionValue([](const Partition& p) { return p.name(); })},
      {"a", "available", "AVAIL", Scope::kPartition,
       partitionValue([](const Partition& p) { return p.state().empty() ? "up" : lower(p.state()); })},
      {"l", "time", "TIMELIMIT", Scope::kPartition,
       partitionValue(
           [](const Partition& p) { return formatLimitMinutes(p.max_time_minutes(), "infinite"); })},
      {"D", "nodes", "NODES", Scope::kAggregate,
       [](const SinfoRow& row) { return std::to_string(row.nodes.size()); }},
      {"N", "nodelist", "NODELIST", Scope::kAggregate, nodeNames},
      {"n", "nodehost", "HOSTNAMES", Scope::kAggregate, nodeNames},
      {"C", "cpusstate", "CPUS(A/I/O/T)", Scope::kAggregate, cpuStates},
      {"F", "nodeaiot", "NODES(A/I/O/T)", Scope::kAggregate, nodeStates},
      {"s", "size", "JOB_SIZE", Scope::kPartition,
       partitionValue([](const Partition& p) {
         return "1-" + (p.max_nodes() < 0 ? std::string("infinite") : std::to_string(p.max_nodes()));
       })},
      // Gantry has no RootOnly or AllowGroups: every partition is open to all.
      {"r", "root", "ROOT", Scope::kPartition, partitionValue([](const Partition&) { return std::string("no"); })},
      {"g", "groups", "GROUPS", Scope::kPartition,
       partitionValue([](const Partition&) { return std::string("all"); })},
      {"h", "oversubscribe", "OVERSUBSCRIBE", Scope::kPartition,
       partitionValue([](const Partition& p) { return p.over_subscribe().empty() ? "NO" : p.over_subscribe(); })},
      {"T", "statelong", "STATE", Scope::kNode,
       nodeValue([](const Node& n) { return nodeStateLong(n); })},
      {"t", "statecompact", "STATE", Scope::kNode,
       nodeValue([](const Node& n) { return nodeStateCompact(n); })},
      {"", "statecomplete", "STATECOMPLETE", Scope::kNode,
       nodeValue([](const Node& n) { return nodeStateComplete(n.base_state(), n.state_flags()); })},
      {"c", "cpus", "CPUS", Scope::kNode,
       nodeValue([](const Node& n) { return std::to_string(n.cpus()); })},
      {"m", "memory", "MEMORY", Scope::kNode,
       nodeValue([](const Node& n) { return std::to_string(n.real_memory_mb()); })},
      {"", "allocmem", "ALLOCMEM", Scope::kNode,
       nodeValue([](const Node& n) { return std::to_string(n.alloc_memory_mb()); })},
      {"G", "gres", "GRES", Scope::kNode, nodeValue([](const Node& n) { return orNull(n.gres()); })},
      {"", "gresused", "GRES_USED", Scope::kNode,
       nodeValue([](const Node& n) { return orNull(n.gres_used()); })},
      {"E", "reason", "REASON", Scope::kNode,
       nodeValue([](const Node& n) { return reasonOf(n).empty() ? "none" : reasonOf(n); })},
      {"u", "user", "USER", Scope::kNode, nodeValue(reasonUserOf)},
      {"H", "timestamp", "TIMESTAMP", Scope::kNode,
       nodeValue([](const Node& n) { return formatTimestamp(n.reason_time(), "Unknown"); })},
      {"f", "features", "AVAIL_FEATURES", Scope::kNode,
       nodeValue([](const Node& n) {
         std::string out;
         for (const auto& f : n.features()) out += (out.empty() ? "" : ",") + f;
         return orNull(out);
       })},
      {"z", "socketcorethread", "S:C:T", Scope::kNode,
       nodeValue([](const Node& n) {
         return std::to_string(n.sockets()) + ":" + std::to_string(n.cores_per_socket()) + ":" +
                std::to_string(n.threads_per_core());
       })},
      {"X", "sockets", "SOCKETS", Scope::kNode,
       nodeValue([](const Node& n) { return std::to_string(n.sockets()); })},
      {"Y", "cores", "CORES", Scope::kNode,
       nodeValue([](const Node& n) { return std::to_string(n.cores_per_socket()); })},
      {"Z", "threads", "THREADS", Scope::kNode,
       nodeValue([](const Node& n) { return std::to_string(n.threads_per_core()); })},
      {"o", "nodeaddr", "NODE_ADDR", Scope::kNode, nodeValue([](const Node& n) { return n.addr(); })},
      {"d", "disk", "TMP_DISK", Scope::kNode,
       nodeValue([](const Node& n) { return std::to_string(n.tmp_disk_mb()); })},
      {"w", "weight", "WEIGHT", Scope::kNode, nodeValue([](const Node& n) { return std::to_string(n.weight()); })},
  };
  return fields;
}

const SinfoField* findField(const std::string& key) {
  for (const SinfoField& field : sinfoFields()) {
    if (key == field.name || (field.code[0] != '\0' && key == field.code)) return &field;
  }
  return nullptr;
}

// Rows before grouping: in the node view one per (node, partition); in the
// summary one per partition with all its nodes. A format without partition
// fields gets a single pseudo-partition so each node appears once.
std::vector<SinfoRow> ungroupedRows(const LineFormat& format,
                                    const std::vector<Partition>& partitions,
                                    const std::vector<Node>& nodes, SinfoView view, bool filtered) {
  bool byPartition = false;
  for (const FieldSpec& spec : format.fields) {
    if (findField(spec.key)->scope == Scope::kPartition) byPartition = true;
  }
  std::vector<SinfoRow> rows;
  auto addNodes = [&](const Partition* partition, const std::vector<const Node*>& members) {
    // An empty partition is still listed, unless node filters emptied it.
    if (members.empty() && partition != nullptr && view == SinfoView::kPartitions && !filtered) {
      rows.push_back(SinfoRow{partition, {}});
    }
    for (const Node* node : members) {
      if (view == SinfoView::kReasons && reasonOf(*node).empty()) continue;
      rows.push_back(SinfoRow{partition, {node}});
    }
  };
  if (!byPartition) {
    std::vector<const Node*> all;
    for (const Node& node : nodes) all.push_back(&node);
    addNodes(nullptr, all);
    return rows;
  }
  // Membership comes from each node's own partition list: a partition's
  // Nodes= may be "ALL" or name nodes that are not configured.
  for (const Partition& partition : partitions) {
    std::vector<const Node*> members;
    for (const Node& node : nodes) {
      const auto& of = node.partitions();
      if (std::find(of.begin(), of.end(), partition.name()) != of.end()) members.push_back(&node);
    }
    addNodes(&partition, members);
  }
  return rows;
}

// Merges rows whose non-aggregate values are equal (never across nodes in
// the node view, where the node list is the identity of a row).
std::vector<SinfoRow> groupRows(const LineFormat& format, const std::vector<SinfoRow>& rows,
                                SinfoView view) {
  std::vector<SinfoRow> grouped;
  std::map<std::string, size_t> indexByKey;
  // The nodes already in each grouped row, so merging stays linear in the
  // node count (a cluster of idle nodes is one row of thousands).
  std::vector<std::set<const Node*>> members;
  for (const SinfoRow& row : rows) {
    std::string key = row.partition ? row.partition->name() : "";
    key += '\x1f';
    if (view == SinfoView::kNodes && !row.nodes.empty()) key += row.nodes[0]->name();
    for (const FieldSpec& spec : format.fields) {
      const SinfoField* field = findField(spec.key);
      if (field->scope != Scope::kAggregate) key += '\x1f' + field->value(row);
    }
    auto [it, inserted] = indexByKey.emplace(key, grouped.size());
    if (inserted) {
      grouped.push_back(row);
      members.emplace_back(row.nodes.begin(), row.nodes.end());
      continue;
    }
    SinfoRow& target = grouped[it->second];
    for (const Node* node : row.nodes) {
      if (members[it->second].insert(node).second) target.nodes.push_back(node);
    }
  }
  return grouped;
}

}  // namespace

std::vector<ColumnName> sinfoColumns() {
  std::vector<ColumnName> columns;
  for (const SinfoField& field : sinfoFields()) columns.push_back({field.code, field.name, field.header});
  return columns;
}

LineFormat defaultSinfoFormat(SinfoView view, SinfoDefaults defaults) {
  const bool longList = defaults.longList;
  switch (view) {
    case SinfoView::kNodes:
      return parseSinfoFormat(longList ? "%#N %.6D %#P %.11T %.4c %.8z %.6m %.8d %.6w %.8f %20E" : "%#N %.6D %#P %6t")
          .value();
    case SinfoView::kReasons:
      return parseSinfoFormat(longList ? "%20E %9u %19H %6t %N" : "%30E %9u %19H %N").value();
    case SinfoView::kPartitions:
      break;
  }
  if (defaults.summarize) return parseSinfoFormat("%#P %.5a %.10l %.16F  %N").value();
  if (longList) return parseSinfoFormat("%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N").value();
  return parseSinfoFormat("%#P %.5a %.10l %.6D %.6t %N").value();
}

Result<LineFormat> parseSinfoFormat(const std::string& format) {
  return parsePercentFormat(
      format, [](const std::string& code) { return findField(code) != nullptr; }, "-o/--format");
}

Result<LineFormat> parseSinfoFieldList(const std::string& list) {
  return parseFieldList(
      list,
      [](const std::string& name) {
        const SinfoField* field = findField(name);
        return field != nullptr && name == field->name;
      },
      "-O/--Format");
}

std::string renderSinfo(const LineFormat& format, const std::vector<Partition>& partitions,
                        const std::vector<Node>& nodes, const SinfoRenderOptions& options) {
  std::vector<SinfoRow> rows =
      groupRows(format, ungroupedRows(format, partitions, nodes, options.view, options.nodesFiltered), options.view);
  return renderTable<SinfoRow>(
      format, rows, options.header,
      [](const std::string& key) { return std::string(findField(key)->header); },
      [](const std::string& key, const SinfoRow& row) { return findField(key)->value(row); });
}

}  // namespace gantry::cli
