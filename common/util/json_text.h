// Writing JSON string values by hand, for the hot paths that append JSON
// text directly instead of building a document first.
#pragma once

#include <string>
#include <string_view>

namespace gantry {

// Appends `text` as a quoted JSON string. Quotes, backslashes and control
// characters are escaped; bytes that are not valid UTF-8 become U+FFFD, so
// the result always parses (a job name may carry any bytes).
void appendJsonString(std::string& out, std::string_view text);

}  // namespace gantry
