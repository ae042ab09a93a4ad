#include "controller/core/requested_nodes.h"

#include <algorithm>
#include <vector>

#include "common/hostlist/hostlist.h"
#include "controller/core/partition_fit.h"
#include "controller/select/request.h"

namespace gantry::core {
namespace {

// The sorted, distinct selection indexes of an expression's names; the
// error names the option and the first name no node has, or the first
// that `excluded` (sorted) holds as well.
Result<std::vector<int>> indexesOf(const std::string& expr, const char* option, const NodeLookup& lookup,
                                   const std::vector<int>& excluded = {}) {
  std::vector<int> indexes;
  if (expr.empty()) return indexes;
  auto names = hostlist::expand(expr);
  if (!names) return Error{std::string(kInvalidNodeName) + ": " + option + ": " + names.error()};
  for (const std::string& name : *names) {
    int index = lookup(name);
    if (index < 0) return Error{std::string(kInvalidNodeName) + ": " + option + ": no node is named '" + name + "'"};
    if (std::binary_search(excluded.begin(), excluded.end(), index)) {
      return Error{std::string(kInvalidNodeName) + ": node '" + name + "' is both required (--nodelist) and "
                   "excluded (--exclude)"};
    }
    indexes.push_back(index);
  }
  std::sort(indexes.begin(), indexes.end());
  indexes.erase(std::unique(indexes.begin(), indexes.end()), indexes.end());
  return indexes;
}

}  // namespace

Status applyRequestedNodes(const v1::JobSpec& spec, NodeListUse use, const NodeLookup& lookup,
                           select::Request& request) {
  auto excluded = indexesOf(spec.excluded_nodes(), "--exclude", lookup);
  if (!excluded) return Error{excluded.error()};
  auto required = indexesOf(spec.required_nodes(), "--nodelist", lookup, *excluded);
  if (!required) return Error{required.error()};
  select::NodeLists lists;
  lists.excluded = std::move(*excluded);
  int count = static_cast<int>(required->size());
  // The counts as the spec gives them (0: not given); -N a alone means
  // exactly a nodes.
  int minGiven = spec.min_nodes();
  int maxGiven = spec.max_nodes() > 0 ? spec.max_nodes() : spec.min_nodes();
  if (use == NodeListUse::Step && maxGiven > 0 && count > maxGiven) {
    return Error{std::string(select::kReasonNeverAvailable) + ": --nodelist names " + std::to_string(count) +
                 " nodes, the step may have at most " + std::to_string(maxGiven)};
  }
  if (minGiven > 0 && count > minGiven) {
    lists.candidates = std::move(*required);
  } else {
    if (request.maxNodes > 0 && count > request.maxNodes) {
      return Error{std::string(kNodeCountInvalid) + ": --nodelist names " + std::to_string(count) +
                   " nodes, more than the maximum of " + std::to_string(request.maxNodes)};
    }
    lists.required = std::move(*required);
    request.minNodes = std::max(request.minNodes, count);
  }
  request.nodeLists = std::move(lists);
  return okStatus();
}

}  // namespace gantry::core
