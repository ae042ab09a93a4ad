// `sacctmgr show event` (also `list event(s)`): its words, the query they
// make and the table, apart from the controller call.
//
// Conditions: Nodes=<hostlist>, States=<list>, Start=<time>, End=<time>,
// Clusters=<list>, CondFlags=Open, All_Time, All_Clusters, Format=<fields>
// (a leading "where" is skipped). Without Start=: events since 00:00
// yesterday, or, with States=, those in force now; All_Time lifts the
// window. Format fields (Slurm's widths): Cluster, NodeName, TimeStart
// (Start), TimeEnd (End), State, Reason, User, TRES, TresReference,
// Duration; the default is Cluster,NodeName,TimeStart,TimeEnd,State,
// Reason,User, without TRES and TresReference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/accounting_table.h"
#include "common/util/result.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::cli {

struct EventField {
  std::string key;  // canonical name: "NodeName", "TimeStart", ...
  TableColumn column;
};

struct EventPlan {
  v1::ListNodeEventsRequest request;
  std::vector<EventField> fields;
};

// `words` are those after "show event". Invalid, naming the word, for an
// unknown condition, field, state or time.
Result<EventPlan> planEventQuery(const std::vector<std::string>& words, int64_t now);

// Every Format= field of `show event`, with the shorter name it also
// takes where it has one ("TimeStart (Start)").
std::vector<std::string> eventFieldNames();

std::string renderEvents(const std::vector<EventField>& fields, const std::vector<v1::AccountingNodeEvent>& events,
                         const TableStyle& style, int64_t now);

}  // namespace gantry::cli
