// When to send a request again, and how long to wait first: connection
// errors, timeouts, 408, 429 and 5xx are worth another try; other answers
// are final. Waits grow exponentially with full jitter (so that parallel
// uploads do not retry in step) and honor the server's Retry-After.
#pragma once

#include "common/http/http_answers.h"
#include "common/http/http_client.h"

#include <ctime>
#include <optional>
#include <string>

namespace dumpsyms {

struct RetryPolicy {
  unsigned retries = 5;         // tries after the first
  double first_delay = 0.5;     // seconds; doubles each try
  double max_delay = 30;        // cap of the exponential wait
  double max_retry_after = 120; // cap of a server's Retry-After
};

// (isRetryable and retryAfterSeconds, which read answers: http_answers.h)

// The wait before try `attempt` (1 = the first retry); `random01` in [0, 1).
double backoffDelay(const RetryPolicy& policy, unsigned attempt, std::optional<double> retry_after,
                    double random01);

// Sends `request` until an answer is final or the retries are spent; the
// last response either way. `tries` receives how many were made.
HttpResponse performWithRetries(const HttpRequest& request, const RetryPolicy& policy,
                                unsigned* tries = nullptr);

} // namespace dumpsyms
