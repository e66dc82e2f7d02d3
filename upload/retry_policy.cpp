#include "upload/retry_policy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <thread>

namespace dumpsyms {

bool isRetryable(const HttpResponse& response) {
  if (!response.answered())
    return true;
  return response.status == 408 || response.status == 429 || response.status >= 500;
}

std::optional<double> retryAfterSeconds(const std::string& value, std::time_t now) {
  if (value.empty())
    return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::strtod(value.c_str(), nullptr);
  // An HTTP date: "Sun, 06 Nov 1994 08:49:37 GMT".
  std::tm date = {};
  const char* end = strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &date);
  if (!end)
    return std::nullopt;
  std::time_t when = timegm(&date);
  return std::max(0.0, std::difftime(when, now));
}

double backoffDelay(const RetryPolicy& policy, unsigned attempt, std::optional<double> retry_after,
                    double random01) {
  if (retry_after)
    return std::min(*retry_after, policy.max_retry_after);
  double cap = std::min(policy.max_delay, policy.first_delay * std::ldexp(1.0, int(attempt) - 1));
  // Full jitter, but never less than a tenth of the cap.
  return cap * (0.1 + 0.9 * random01);
}

HttpResponse performWithRetries(const HttpRequest& request, const RetryPolicy& policy,
                                unsigned* tries) {
  thread_local std::mt19937_64 random(std::random_device{}());
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  HttpResponse response;
  for (unsigned attempt = 0;; ++attempt) {
    response = performRequest(request);
    if (tries)
      *tries = attempt + 1;
    if (!isRetryable(response) || attempt >= policy.retries)
      return response;
    auto retry_after = retryAfterSeconds(response.header("retry-after"), std::time(nullptr));
    double wait = backoffDelay(policy, attempt + 1, retry_after, uniform(random));
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
  }
}

} // namespace dumpsyms
