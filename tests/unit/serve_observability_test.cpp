// What symstore serve tells its operator: the access log line (no query,
// no forged lines) and the Prometheus exposition (cumulative buckets,
// escaped labels, the upload counters).
#include "server/service/access_log.h"
#include "server/service/metrics.h"

#include <gtest/gtest.h>
#include <sstream>

namespace dumpsyms {
namespace {

using namespace std::chrono_literals;

TEST(ServeAccessLog, OneLineWithoutTheQuery) {
  ServerRequest request;
  request.method = "GET";
  request.path = "/app/ID/app.sym";
  request.query = {{"key", "secret-token"}};
  request.client = "127.0.0.1:5555";
  ServerResponse response = ServerResponse::text(200, "x");
  response.route = "breakpad";
  auto when = std::chrono::system_clock::time_point(std::chrono::seconds(1764892800));
  std::string line = accessLogLine(request, response, 1234, 1500us, when);
  EXPECT_EQ(line, "2025-12-05T00:00:00Z 127.0.0.1:5555 GET /app/ID/app.sym 200 1234 1.5ms "
                  "breakpad\n");
  EXPECT_EQ(line.find("secret"), std::string::npos);
}

TEST(ServeAccessLog, APathCannotForgeALine) {
  ServerRequest request;
  request.method = "GET";
  request.path = "/a b\n2025-01-01T00:00:00Z 1.2.3.4:1 GET /x 200 0 0.0ms forged\\\x7f\xff";
  ServerResponse response;
  response.status = 404;
  std::string line =
      accessLogLine(request, response, 0, 0us, std::chrono::system_clock::time_point());
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1);
  EXPECT_NE(line.find("/a\\x20b\\x0a2025"), std::string::npos) << line;
  EXPECT_NE(line.find("forged\\x5c\\x7f\\xff"), std::string::npos) << line;
  EXPECT_EQ(line.substr(line.size() - 3), " -\n"); // no route
}

double sample(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind(prefix + " ", 0) == 0)
      return std::stod(line.substr(prefix.size() + 1));
  return -1;
}

TEST(ServeMetrics, CountersAndCumulativeBuckets) {
  UploadCounters uploads;
  uploads.files_published = 3;
  uploads.refusals = 2;
  ServerMetrics metrics(uploads);
  metrics.record("breakpad", 200, 100, 200us);
  metrics.record("breakpad", 200, 50, 30ms);
  metrics.record("breakpad", 404, 26, 2s);
  metrics.record("put", 201, 0, 10s);
  metrics.authRefused(401);
  std::string text = metrics.text();
  EXPECT_EQ(sample(text, R"(symstore_requests_total{route="breakpad",status="200"})"), 2);
  EXPECT_EQ(sample(text, R"(symstore_requests_total{route="breakpad",status="404"})"), 1);
  EXPECT_EQ(sample(text, R"(symstore_response_bytes_total{route="breakpad"})"), 176);
  EXPECT_EQ(sample(text, R"(symstore_request_duration_seconds_bucket{le="0.0005"})"), 1);
  EXPECT_EQ(sample(text, R"(symstore_request_duration_seconds_bucket{le="0.05"})"), 2);
  EXPECT_EQ(sample(text, R"(symstore_request_duration_seconds_bucket{le="5"})"), 3);
  EXPECT_EQ(sample(text, R"(symstore_request_duration_seconds_bucket{le="+Inf"})"), 4);
  EXPECT_EQ(sample(text, "symstore_request_duration_seconds_count"), 4);
  EXPECT_NEAR(sample(text, "symstore_request_duration_seconds_sum"), 12.0302, 1e-6);
  EXPECT_EQ(sample(text, R"(symstore_uploads_total{outcome="published"})"), 3);
  EXPECT_EQ(sample(text, "symstore_upload_refusals_total"), 2);
  EXPECT_EQ(sample(text, R"(symstore_auth_refusals_total{status="401"})"), 1);
  EXPECT_EQ(sample(text, R"(symstore_auth_refusals_total{status="403"})"), 0);
}

TEST(ServeMetrics, LabelValuesAreEscaped) {
  UploadCounters uploads;
  ServerMetrics metrics(uploads);
  metrics.record("we\"ird\\route\n", 200, 0, 1ms);
  EXPECT_NE(metrics.text().find(R"(route="we\"ird\\route\n")"), std::string::npos);
}

} // namespace
} // namespace dumpsyms
