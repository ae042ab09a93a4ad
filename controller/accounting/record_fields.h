// Records as columns, in the order of kJobColumns / kEventColumns (and for
// jobs the two derived columns of kPutJob after them), written once for
// both backends. A backend supplies only how one value is bound or read:
//
//   a FieldSink has text(string), integer(int64_t) and
//   optional(std::optional<T>) (nullopt is NULL), each binding the next
//   placeholder;
//   a FieldSource has text(), integer() and optional<T>(), each reading the
//   next column.
//
// Internal to controller/accounting.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "controller/accounting/accounting_sql.h"
#include "controller/accounting/records.h"

namespace gantry::accounting::detail {

template <typename Sink>
concept FieldSink = requires(Sink sink, const std::string& text, int64_t number, std::optional<uint32_t> maybe) {
  sink.text(text);
  sink.integer(number);
  sink.optional(maybe);
};

template <typename Source>
concept FieldSource = requires(Source source) {
  { source.text() } -> std::convertible_to<std::string>;
  { source.integer() } -> std::convertible_to<int64_t>;
  { source.template optional<uint32_t>() } -> std::convertible_to<std::optional<uint32_t>>;
};

// Each column of kJobColumns, in order, handed to `columns` with the field
// that holds it: one list for writing a record and for reading it back, so
// the two cannot drift apart. Record is JobRecord or const JobRecord.
template <typename Record, typename Columns>
void jobColumns(Record& r, Columns& columns) {
  columns.text(r.cluster);
  columns.integer(r.jobId);
  columns.text(r.stepId);
  columns.integer(r.submitTime);
  columns.text(r.name);
  columns.text(r.user);
  columns.integer(r.uid);
  columns.text(r.group);
  columns.integer(r.gid);
  columns.text(r.account);
  columns.text(r.partition);
  columns.integer(r.eligibleTime);
  columns.integer(r.startTime);
  columns.integer(r.endTime);
  columns.optional(r.timeLimitMinutes);
  columns.text(r.state);
  columns.optional(r.cancelledByUid);
  columns.integer(r.exitCode.code);
  columns.integer(r.exitCode.signal);
  columns.integer(r.derivedExitCode.code);
  columns.integer(r.derivedExitCode.signal);
  columns.integer(r.nodeCount);
  columns.text(r.nodeList);
  columns.integer(r.allocCpus);
  columns.text(r.reqTres);
  columns.text(r.allocTres);
  columns.text(r.usageIn.min);
  columns.text(r.usageIn.minNode);
  columns.text(r.usageIn.minTask);
  columns.text(r.usageIn.max);
  columns.text(r.usageIn.maxNode);
  columns.text(r.usageIn.maxTask);
  columns.text(r.usageIn.ave);
  columns.text(r.usageIn.tot);
  columns.text(r.reason);
  columns.text(r.workDir);
  columns.text(r.comment);
  columns.integer(r.arrayJobId);
  columns.optional(r.arrayTaskId);
  columns.text(r.arrayTasks);
}

// The same for kEventColumns.
template <typename Record, typename Columns>
void eventColumns(Record& e, Columns& columns) {
  columns.text(e.cluster);
  columns.text(e.node);
  columns.integer(e.startTime);
  columns.integer(e.endTime);
  columns.text(e.state);
  columns.text(e.reason);
  columns.text(e.user);
  columns.text(e.tres);
  columns.text(e.tresReference);
}

// Columns that pass each field's value to a sink.
template <FieldSink Sink>
struct ColumnWriter {
  Sink& sink;
  void text(const std::string& value) { sink.text(value); }
  template <typename T>
  void integer(const T& value) {
    sink.integer(static_cast<int64_t>(value));
  }
  template <typename T>
  void optional(const std::optional<T>& value) {
    sink.optional(value);
  }
};

// Columns that fill each field from a source.
template <FieldSource Source>
struct ColumnReader {
  Source& source;
  void text(std::string& field) { field = source.text(); }
  template <typename T>
  void integer(T& field) {
    field = static_cast<T>(source.integer());
  }
  template <typename T>
  void optional(std::optional<T>& field) {
    field = source.template optional<T>();
  }
};

// The values of kPutJob: the columns, then the derived `progress` and
// `window_end`.
template <FieldSink Sink>
void writeJobFields(Sink& sink, const JobRecord& record) {
  ColumnWriter<Sink> writer{sink};
  jobColumns(record, writer);
  sink.integer(sql::jobProgress(record.startTime, record.endTime));
  sink.integer(sql::windowEnd(record.endTime));
}

// The values of kPutEvent.
template <FieldSink Sink>
void writeEventFields(Sink& sink, const NodeEvent& event) {
  ColumnWriter<Sink> writer{sink};
  eventColumns(event, writer);
}

// A query's values, in order.
template <FieldSink Sink>
void writeQueryFields(Sink& sink, const sql::BoundQuery& query) {
  for (const auto& value : query.binds) {
    if (const auto* number = std::get_if<int64_t>(&value)) sink.integer(*number);
    else sink.text(std::get<std::string>(value));
  }
}

// A row of kJobColumns.
template <FieldSource Source>
JobRecord readJobFields(Source& source) {
  JobRecord record;
  ColumnReader<Source> reader{source};
  jobColumns(record, reader);
  return record;
}

// A row of kEventColumns.
template <FieldSource Source>
NodeEvent readEventFields(Source& source) {
  NodeEvent event;
  ColumnReader<Source> reader{source};
  eventColumns(event, reader);
  return event;
}

}  // namespace gantry::accounting::detail
