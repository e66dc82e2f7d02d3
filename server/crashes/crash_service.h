// The crash inbox's routes (`symstore serve --crashes`):
//   POST /submit                    a crash as Breakpad's and Crashpad's clients send it
//   POST /submit/report             an OpenSync-style JSON report
//   GET  /api/crashes               ?signature=&product=&version=&since=&limit=&cursor=
//                                   (&q= signature text, &debug_id= a module's)
//   GET  /api/crashes/<id>          the crash, its signature, status, missing modules, walk
//   GET  /api/crashes/<id>/files/<file>   one of its files (the dump, an attachment)
//   GET  /api/signatures            ?since=: the groups, most crashes first
//   GET  /ui/crashes, /ui/crashes/<id>, /ui/signature?s=   the pages
// A submission is answered "CrashID=bp-<id>" only once its files are in the
// crash store; a refusal is Socorro's ("Discarded=..."). Who may read or
// submit is the dispatcher's business (server/service/symbol_service.h).
#pragma once

#include "server/crashes/crash_index.h"
#include "server/crashes/crash_processor.h"
#include "server/crashes/crash_store.h"
#include "server/crashes/crash_submission.h"
#include "server/http/http_server.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace dumpsyms {

struct CrashServiceSettings {
  SubmissionLimits limits;
  unsigned rate_per_minute = 0; // --crash-rate: per client address and per guid; 0: none
  std::string store_name;       // shown in the pages' header
};

// Counted for /metrics.
struct CrashCounters {
  std::atomic<uint64_t> accepted{0}, discarded_rate{0}, malformed{0}, too_large{0};
};

enum class CrashRoute { None, Submit, Read };
CrashRoute crashRouteOf(const std::string& method, const std::string& path);

class CrashService {
public:
  CrashService(CrashStore& crashes, CrashIndex& index, CrashProcessor& processor,
               CrashServiceSettings settings, CrashCounters& counters);

  ServerResponse handle(ServerRequest& request);

private:
  ServerResponse submit(ServerRequest& request, bool report);
  ServerResponse listCrashes(const ServerRequest& request);
  ServerResponse crash(const std::string& id);
  ServerResponse crashFile(const std::string& id, const std::string& file);
  ServerResponse listSignatures(const ServerRequest& request);
  ServerResponse crashesPage(const ServerRequest& request);
  ServerResponse crashPage(const ServerRequest& request, const std::string& id);
  ServerResponse signaturePage(const ServerRequest& request);
  ServerResponse page(int status, const std::string& title, std::string body);
  // Whether `key` (a client address or guid) is over the rate.
  bool overRate(const std::string& key);

  CrashStore& crashes_;
  CrashIndex& index_;
  CrashProcessor& processor_;
  CrashServiceSettings settings_;
  CrashCounters& counters_;

  std::mutex rate_mutex_;
  // key -> (the minute it counts in, crashes in it)
  std::map<std::string, std::pair<int64_t, unsigned>> rates_;
};

} // namespace dumpsyms
