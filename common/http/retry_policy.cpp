#include "common/http/retry_policy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <thread>

namespace dumpsyms {

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
