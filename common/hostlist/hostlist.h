// Host expressions as administrators write them in gantry.conf, gres.conf and
// on the command line: "tux[0-7]", "n[01-10,12]", "rack[1-2]-n[1-4]",
// "a,b[1-3]", "/dev/nvidia[0-15]".
//
// Pure functions, no I/O; safe to call from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"

namespace gantry::hostlist {

// An expression may not produce more names than this, so a typo such as
// "n[0-99999999]" fails with a clear error instead of exhausting memory.
inline constexpr std::size_t kMaxExpandedNames = 1u << 20;

// Expands an expression into names, in the order written. Commas and
// whitespace outside brackets separate elements; empty elements are skipped.
// Several bracket groups in one element form every combination, leftmost
// group varying slowest. Zero padding follows the lower bound ("01-10" gives
// "01".."10"). Fails on unbalanced or nested brackets, an empty bracket, a
// reversed range ("[5-2]"), a bound that is not a number, or more than
// kMaxExpandedNames names. The error quotes the expression and the rule.
Result<std::vector<std::string>> expand(std::string_view expr);

// The shortest bracket form of `names`: names that differ only in their
// trailing number share one bracket, duplicates are dropped, numbers are
// sorted, and prefixes keep the order of their first appearance.
// compress({"tux0","tux1","tux2","tux5"}) == "tux[0-2,5]".
std::string compress(const std::vector<std::string>& names);

// The ranged form that keeps the order written, as `scontrol show hostlist`
// prints it: consecutive names that differ only in their trailing number
// share a bracket, nothing is sorted and duplicates stay.
// compressInOrder({"n3","n1","n2","a"}) == "n[3,1-2],a".
std::string compressInOrder(const std::vector<std::string>& names);

// `names` in the order `scontrol show hostlistsorted` gives them: by the
// text before the trailing number (digit runs in it compared as numbers),
// a name without a number before the numbered names of the same text, then
// by number. Duplicates stay.
// sortNames({"n10","n9","rack2","rack10","n"}) == {"n","n9","n10","rack2","rack10"}.
std::vector<std::string> sortNames(std::vector<std::string> names);

// expand() then one name per line, as `scontrol show hostnames` prints.
Result<std::string> formatHostnames(std::string_view expr);

}  // namespace gantry::hostlist
