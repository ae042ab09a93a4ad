#include "common/switchlua/lua_json.h"

#include <cmath>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <lua.hpp>

namespace gantry::switchlua {
namespace {

using nlohmann::json;

std::string where(const std::string& path) { return path.empty() ? "at the top" : "at " + path; }

std::string childPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string childPath(const std::string& parent, lua_Integer key) {
  return parent + "[" + std::to_string(key) + "]";
}

// One table's entries before it is known whether they form an array.
struct Entry {
  std::optional<lua_Integer> index;  // integer key
  std::string name;                  // string key
  json value;
};

class LuaReader {
 public:
  LuaReader(lua_State* L, const TableLimits& limits) : L_(L), limits_(limits) {}

  LuaRead readTop(int index) {
    LuaRead out;
    if (!read(lua_absindex(L_, index), 0, "", out.value)) {
      out.problem = problem_;
      out.detail = detail_;
      out.value = nullptr;
    }
    return out;
  }

 private:
  bool fail(ReadProblem problem, std::string detail) {
    problem_ = problem;
    detail_ = std::move(detail);
    return false;
  }

  // `depth` is the number of tables around the value.
  bool read(int index, int depth, const std::string& path, json& out) {
    switch (lua_type(L_, index)) {
      case LUA_TNIL: out = nullptr; return true;
      case LUA_TBOOLEAN: out = lua_toboolean(L_, index) != 0; return true;
      case LUA_TNUMBER: return readNumber(index, path, out);
      case LUA_TSTRING: {
        size_t length = 0;
        const char* data = lua_tolstring(L_, index, &length);
        std::string text(data, length);
        if (!isUtf8(text)) return fail(ReadProblem::Unreadable, where(path) + ": a string that is not UTF-8");
        out = std::move(text);
        return true;
      }
      case LUA_TTABLE: return readTable(index, depth + 1, path, out);
      default:
        return fail(ReadProblem::Unreadable,
                    where(path) + ": a " + std::string(luaL_typename(L_, index)) + " cannot be converted");
    }
  }

  bool readNumber(int index, const std::string& path, json& out) {
    if (lua_isinteger(L_, index)) {
      out = static_cast<int64_t>(lua_tointeger(L_, index));
      return true;
    }
    double number = lua_tonumber(L_, index);
    if (!std::isfinite(number)) {
      return fail(ReadProblem::Unreadable, where(path) + ": the number " + std::string(lua_tostring(L_, index)) +
                                               " cannot be converted");
    }
    out = number;
    return true;
  }

  bool readTable(int index, int depth, const std::string& path, json& out) {
    if (depth > limits_.maxDepth) {
      return fail(ReadProblem::TooDeep,
                  where(path) + ": tables nested more than " + std::to_string(limits_.maxDepth) + " levels deep");
    }
    luaL_checkstack(L_, 4, "switch/lua: converting a table");
    const int top = lua_gettop(L_);
    std::vector<Entry> entries;
    bool ok = true;
    lua_pushnil(L_);
    while (ok && lua_next(L_, index) != 0) {
      ok = readEntry(depth, path, entries);
      lua_pop(L_, 1);  // the value; the key stays for lua_next
    }
    lua_settop(L_, top);
    return ok && assemble(std::move(entries), path, out);
  }

  // Key at -2, value at -1.
  bool readEntry(int depth, const std::string& path, std::vector<Entry>& entries) {
    if (++entryCount_ > limits_.maxEntries) {
      return fail(ReadProblem::TooLarge, "more than " + std::to_string(limits_.maxEntries) + " entries");
    }
    Entry entry;
    std::string valuePath;
    int keyType = lua_type(L_, -2);
    if (keyType == LUA_TSTRING) {
      size_t length = 0;
      const char* data = lua_tolstring(L_, -2, &length);  // a string key: no conversion in place
      entry.name.assign(data, length);
      if (!isUtf8(entry.name)) return fail(ReadProblem::Unreadable, where(path) + ": a key that is not UTF-8");
      valuePath = childPath(path, entry.name);
    } else if (keyType == LUA_TNUMBER && lua_isinteger(L_, -2)) {
      entry.index = lua_tointeger(L_, -2);
      valuePath = childPath(path, *entry.index);
    } else {
      std::string kind = keyType == LUA_TNUMBER ? "fractional number" : luaL_typename(L_, -2);
      return fail(ReadProblem::Unreadable, where(path) + ": a key that is a " + kind);
    }
    if (!read(lua_gettop(L_), depth, valuePath, entry.value)) return false;
    entries.push_back(std::move(entry));
    return true;
  }

  // An array when the keys are exactly 1..n, an object otherwise.
  bool assemble(std::vector<Entry> entries, const std::string& path, json& out) {
    std::map<lua_Integer, json*> byIndex;
    bool onlyIndices = !entries.empty();
    for (auto& entry : entries) {
      if (!entry.index) {
        onlyIndices = false;
        break;
      }
      byIndex[*entry.index] = &entry.value;
    }
    if (onlyIndices && byIndex.begin()->first == 1 &&
        byIndex.rbegin()->first == static_cast<lua_Integer>(entries.size())) {
      out = json::array();
      for (auto& [index, value] : byIndex) out.push_back(std::move(*value));
      return true;
    }
    out = json::object();
    for (auto& entry : entries) {
      std::string name = entry.index ? std::to_string(*entry.index) : entry.name;
      if (out.contains(name)) {
        return fail(ReadProblem::Unreadable,
                    where(path) + ": the key " + name + " is there both as a number and as a string");
      }
      out[name] = std::move(entry.value);
    }
    return true;
  }

  lua_State* L_;
  TableLimits limits_;
  size_t entryCount_ = 0;
  ReadProblem problem_ = ReadProblem::None;
  std::string detail_;
};

}  // namespace

LuaRead readLuaValue(lua_State* L, int index, const TableLimits& limits) {
  return LuaReader(L, limits).readTop(index);
}

void pushJson(lua_State* L, const json& value) {
  luaL_checkstack(L, 3, "switch/lua: converting JSON");
  switch (value.type()) {
    case json::value_t::null:
    case json::value_t::discarded: lua_pushnil(L); return;
    case json::value_t::boolean: lua_pushboolean(L, value.get<bool>() ? 1 : 0); return;
    case json::value_t::number_integer: lua_pushinteger(L, value.get<int64_t>()); return;
    case json::value_t::number_unsigned: {
      uint64_t number = value.get<uint64_t>();
      if (number <= static_cast<uint64_t>(std::numeric_limits<lua_Integer>::max())) {
        lua_pushinteger(L, static_cast<lua_Integer>(number));
      } else {
        lua_pushnumber(L, static_cast<lua_Number>(number));
      }
      return;
    }
    case json::value_t::number_float: lua_pushnumber(L, value.get<double>()); return;
    case json::value_t::string: {
      const auto& text = value.get_ref<const std::string&>();
      lua_pushlstring(L, text.data(), text.size());
      return;
    }
    case json::value_t::array: {
      lua_createtable(L, static_cast<int>(value.size()), 0);
      lua_Integer index = 0;
      for (const auto& element : value) {
        ++index;
        if (element.is_null()) continue;
        pushJson(L, element);
        lua_rawseti(L, -2, index);
      }
      return;
    }
    case json::value_t::object: {
      lua_createtable(L, 0, static_cast<int>(value.size()));
      for (const auto& [name, element] : value.items()) {
        if (element.is_null()) continue;
        lua_pushlstring(L, name.data(), name.size());
        pushJson(L, element);
        lua_rawset(L, -3);
      }
      return;
    }
    case json::value_t::binary: lua_pushnil(L); return;
  }
}

Result<json> parseJsonText(std::string_view text, int maxDepth) {
  bool tooDeep = false;
  auto depthGuard = [&](int depth, json::parse_event_t, json&) {
    if (depth >= maxDepth) tooDeep = true;  // nlohmann counts the outermost level as 0
    return !tooDeep;
  };
  try {
    json value = json::parse(text, depthGuard);
    if (tooDeep) return Error{"nested more than " + std::to_string(maxDepth) + " levels deep"};
    return value;
  } catch (const json::exception& e) {
    return Error{e.what()};
  }
}

bool isUtf8(const std::string& text) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char lead = static_cast<unsigned char>(text[i]);
    size_t extra = 0;
    uint32_t point = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      extra = 1;
      point = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      extra = 2;
      point = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      extra = 3;
      point = lead & 0x07;
    } else {
      return false;
    }
    if (i + extra >= text.size()) return false;  // cut short
    for (size_t k = 1; k <= extra; ++k) {
      unsigned char next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      point = (point << 6) | (next & 0x3F);
    }
    // Overlong forms, surrogates and points past U+10FFFF are not UTF-8.
    static constexpr uint32_t kSmallest[] = {0, 0x80, 0x800, 0x10000};
    if (point < kSmallest[extra] || point > 0x10FFFF || (point >= 0xD800 && point <= 0xDFFF)) return false;
    i += extra + 1;
  }
  return true;
}

}  // namespace gantry::switchlua
