// Lines of crash text read with a bound on their length: a "line" of
// gigabytes without a newline costs no more than the bound.
#pragma once

#include <cstddef>
#include <istream>
#include <string>

namespace dumpsyms {

enum class LineRead { Line, TooLong, End };

// The next line of `in`, without its '\n' and a '\r' before it. A line over
// `limit` bytes is read past and reported as TooLong (`line` is empty).
LineRead readBoundedLine(std::istream& in, size_t limit, std::string& line);

} // namespace dumpsyms
