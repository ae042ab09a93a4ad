#include "controller/drain/drained_tres_json.h"

#include <nlohmann/json.hpp>

namespace gantry::drain {
namespace {

using nlohmann::json;

// Reads one member with its expected type; throws json::type_error (caught
// by fromStoredJson) when it is missing or of another type.
template <typename T>
T member(const json& object, const char* key) {
  return object.at(key).get<T>();
}

}  // namespace

std::string toStoredJson(const DrainedTres& record) {
  json devices = json::array();
  for (const auto& d : record.devices) {
    devices.push_back({{"gres", d.gres}, {"type", d.type}, {"index", d.index}, {"uuid", d.uuid},
                       {"reason", d.reason}, {"not_found", d.notFound}});
  }
  json cpus = json::array();
  for (const auto& c : record.cpus) cpus.push_back({{"cpu", c.cpu}, {"reason", c.reason}});
  json counts = json::array();
  for (const auto& c : record.counts) counts.push_back({{"tres", c.tres}, {"count", c.count}, {"reason", c.reason}});
  json orders = json::array();
  for (const auto& order : record.savedOrders) {
    json slots = json::array();
    for (const auto& slot : order.slots) {
      slots.push_back({{"uuid", slot.uuid}, {"type", slot.type}, {"present", slot.present}});
    }
    orders.push_back({{"gres", order.gres}, {"slots", std::move(slots)}});
  }
  json out = {{"version", 1},      {"devices", std::move(devices)},       {"cpus", std::move(cpus)},
              {"counts", std::move(counts)}, {"saved_orders", std::move(orders)}, {"order_mismatch", record.orderMismatch}};
  return out.dump();
}

Result<DrainedTres> fromStoredJson(const std::string& text) {
  json in = json::parse(text, nullptr, false);
  if (in.is_discarded() || !in.is_object()) return Error{"the drained-TRES record is not a JSON object"};
  try {
    if (member<int>(in, "version") != 1) return Error{"the drained-TRES record has an unknown version"};
    DrainedTres record;
    for (const json& d : in.at("devices")) {
      record.devices.push_back(DeviceDrain{.gres = member<std::string>(d, "gres"),
                                           .type = member<std::string>(d, "type"),
                                           .index = member<int>(d, "index"),
                                           .uuid = member<std::string>(d, "uuid"),
                                           .reason = member<std::string>(d, "reason"),
                                           .notFound = member<bool>(d, "not_found")});
    }
    for (const json& c : in.at("cpus")) {
      record.cpus.push_back(CpuDrain{.cpu = member<int>(c, "cpu"), .reason = member<std::string>(c, "reason")});
    }
    for (const json& c : in.at("counts")) {
      record.counts.push_back(CountDrain{.tres = member<std::string>(c, "tres"),
                                         .count = member<uint64_t>(c, "count"),
                                         .reason = member<std::string>(c, "reason")});
    }
    for (const json& o : in.at("saved_orders")) {
      SavedOrder order{.gres = member<std::string>(o, "gres"), .slots = {}};
      for (const json& s : o.at("slots")) {
        order.slots.push_back(SavedSlot{.uuid = member<std::string>(s, "uuid"),
                                        .type = member<std::string>(s, "type"),
                                        .present = member<bool>(s, "present")});
      }
      record.savedOrders.push_back(std::move(order));
    }
    record.orderMismatch = member<std::vector<std::string>>(in, "order_mismatch");
    for (const auto& d : record.devices) {
      if (d.index < 0) return Error{"the drained-TRES record has a negative device index"};
    }
    for (const auto& c : record.cpus) {
      if (c.cpu < 0) return Error{"the drained-TRES record has a negative cpu id"};
    }
    normalise(record);
    return record;
  } catch (const json::exception& error) {
    return Error{std::string("the drained-TRES record is damaged: ") + error.what()};
  }
}

}  // namespace gantry::drain
