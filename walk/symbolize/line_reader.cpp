#include "walk/symbolize/line_reader.h"

namespace dumpsyms {

LineRead readBoundedLine(std::istream& in, size_t limit, std::string& line) {
  line.clear();
  bool too_long = false, any = false;
  for (int c; (c = in.get()) != std::char_traits<char>::eof();) {
    any = true;
    if (c == '\n')
      break;
    if (line.size() >= limit) {
      too_long = true;
      line.clear();
      line.shrink_to_fit();
      continue;
    }
    if (!too_long)
      line += static_cast<char>(c);
  }
  if (!any)
    return LineRead::End;
  if (too_long)
    return LineRead::TooLong;
  if (!line.empty() && line.back() == '\r')
    line.pop_back();
  return LineRead::Line;
}

} // namespace dumpsyms
