#include "server/service/access_log.h"

#include <cstdio>
#include <ctime>
#include <unistd.h>

namespace dumpsyms {
namespace {

// Bytes outside printable ASCII, spaces and backslashes as \xHH.
std::string escaped(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c <= ' ' || c >= 0x7f || c == '\\') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out.empty() ? "-" : out;
}

} // namespace

std::string accessLogLine(const ServerRequest& request, const ServerResponse& response,
                          uint64_t bytes, std::chrono::steady_clock::duration duration,
                          std::chrono::system_clock::time_point now) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char time_text[32];
  std::strftime(time_text, sizeof time_text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1fms",
                std::chrono::duration<double, std::milli>(duration).count());
  return std::string(time_text) + " " + escaped(request.client) + " " + escaped(request.method) +
         " " + escaped(request.path) + " " + std::to_string(response.status) + " " +
         std::to_string(bytes) + " " + ms + " " + escaped(response.route) + "\n";
}

void writeAccessLog(const std::string& line) {
  // One write(2) per line: atomic for a pipe up to PIPE_BUF, and never
  // interleaved by stdio buffers of other threads.
  size_t done = 0;
  while (done < line.size()) {
    ssize_t written = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (written <= 0)
      return;
    done += static_cast<size_t>(written);
  }
}

} // namespace dumpsyms
