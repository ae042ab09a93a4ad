// A simulated controller around one job's SwitchRecord: sends events with a
// clock the test moves, fires the timeouts the lifecycle arms, keeps the
// record the last PersistSwitchState stored (what a restart reads back),
// and plays the node holds and drains, so a test says what happened in a
// few lines.
#pragma once

#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "controller/switch/switch_lifecycle.h"

namespace gantry::interconnect::test {

using Nodes = std::vector<std::string>;

inline const Nodes kNodes = {"rk4n07", "rk4n08", "rk4n09"};

struct Harness {
  SwitchRecord record = newSwitchRecord(523);
  // Numbers of our own: 45 s timeout, 2 retries.
  SwitchSettings settings{.timeoutMs = 45'000, .retries = 2, .drainOnFailure = true, .blockJobComplete = true};
  int64_t now = 7'000'000;

  SwitchEffects last;  // effects of the last event
  SwitchEffects all;   // every effect since the start
  std::optional<SwitchRecord> persisted;
  std::map<CallId, int64_t> timers;  // armed, not fired yet (a kill does not disarm)
  std::vector<CallId> setups;        // RunSetup calls, in order
  std::vector<RunTeardown> teardowns;
  std::set<std::string> held;
  std::map<std::string, std::string> drained;  // node -> reason
  std::vector<std::string> jobResults;         // "configured:<table>", "declined", "failed:<reason>"

  Result<SwitchEffects> trySend(const SwitchEvent& event) {
    Result<SwitchEffects> result = onSwitchEvent(record, event, now, settings);
    if (result) absorb(*result);
    return result;
  }

  SwitchEffects send(const SwitchEvent& event) {
    Result<SwitchEffects> result = trySend(event);
    INFO((result.ok() ? std::string() : result.error()));
    REQUIRE(result.ok());
    return *result;
  }

  void startSetup(const Nodes& nodes = kNodes) { send(switch_event::StartSetup{nodes}); }
  void setupAnswers(SetupAnswer answer) { send(switch_event::SetupReported{lastSetup(), std::move(answer)}); }
  void teardownAnswers(TeardownAnswer answer) {
    send(switch_event::TeardownReported{lastTeardown().call, std::move(answer)});
  }
  void end(const Nodes& nodes = {}) { send(switch_event::JobEnded{nodes}); }
  void periodic() { send(switch_event::PeriodicCheck{}); }

  // Moves the clock on, firing each armed timeout that comes due, in order.
  void advance(int64_t ms) {
    const int64_t until = now + ms;
    for (;;) {
      auto due = timers.end();
      for (auto it = timers.begin(); it != timers.end(); ++it) {
        if (it->second <= until && (due == timers.end() || it->second < due->second)) due = it;
      }
      if (due == timers.end()) break;
      const CallId call = due->first;
      now = due->second;
      timers.erase(due);
      send(switch_event::CallTimedOut{call});
    }
    now = until;
  }

  // The controller dies (kill -9): no Stopping; what it stored is read back
  // by the next one, whose timers start empty.
  void crashAndRecover(bool callsCanRun = true) {
    record = persisted.value_or(newSwitchRecord(record.job));
    timers.clear();
    send(switch_event::Recovered{callsCanRun});
  }
  // An orderly stop and start (restart or reconfigure).
  void stopAndRecover(bool callsCanRun = true) {
    send(switch_event::Stopping{});
    crashAndRecover(callsCanRun);
  }

  CallId lastSetup() const {
    REQUIRE_FALSE(setups.empty());
    return setups.back();
  }
  const RunTeardown& lastTeardown() const {
    REQUIRE_FALSE(teardowns.empty());
    return teardowns.back();
  }

  template <typename T>
  int count(const SwitchEffects& effects) const {
    int n = 0;
    for (const SwitchEffect& effect : effects) n += std::holds_alternative<T>(effect) ? 1 : 0;
    return n;
  }
  template <typename T>
  int countAll() const { return count<T>(all); }
  template <typename T>
  int countLast() const { return count<T>(last); }

  // The log lines containing `phrase`, since the start.
  int logged(const std::string& phrase, std::optional<LogLevel> level = std::nullopt) const {
    int n = 0;
    for (const SwitchEffect& effect : all) {
      const auto* line = std::get_if<LogLine>(&effect);
      if (line == nullptr || line->text.find(phrase) == std::string::npos) continue;
      if (level && line->level != *level) continue;
      ++n;
    }
    return n;
  }

  bool allHeld(const Nodes& nodes) const {
    for (const std::string& node : nodes) {
      if (!held.contains(node)) return false;
    }
    return true;
  }
  bool noneHeld() const { return held.empty(); }

 private:
  void absorb(const SwitchEffects& effects) {
    last = effects;
    all.insert(all.end(), effects.begin(), effects.end());
    for (const SwitchEffect& effect : effects) {
      if (std::holds_alternative<PersistSwitchState>(effect)) persisted = record;
      if (const auto* e = std::get_if<RunSetup>(&effect)) setups.push_back(e->call);
      if (const auto* e = std::get_if<RunTeardown>(&effect)) teardowns.push_back(*e);
      if (const auto* e = std::get_if<ArmTimeout>(&effect)) timers[e->call] = e->atMs;
      if (const auto* e = std::get_if<HoldNodes>(&effect)) held.insert(e->nodes.begin(), e->nodes.end());
      if (const auto* e = std::get_if<ReleaseNodes>(&effect)) {
        for (const std::string& node : e->nodes) held.erase(node);
      }
      if (const auto* e = std::get_if<DrainNodes>(&effect)) {
        for (const std::string& node : e->nodes) drained[node] = e->reason;
      }
      if (const auto* e = std::get_if<JobConfigured>(&effect)) {
        jobResults.push_back(e->stepinfo ? "configured:" + *e->stepinfo : "declined");
      }
      if (const auto* e = std::get_if<JobSetupFailed>(&effect)) jobResults.push_back("failed:" + e->reason);
    }
  }
};

}  // namespace gantry::interconnect::test
