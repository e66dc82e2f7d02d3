#include "server/service/serve_command.h"

#include "common/files/user_cache_dir.h"
#include "common/limits/input_limits.h"
#include "server/browse/browse_service.h"
#include "server/crashes/crash_inbox.h"
#include "server/downloads/download_service.h"
#include "server/http/http_server.h"
#include "server/http/listen_address.h"
#include "server/ingest/upload_service.h"
#include "server/service/access_log.h"
#include "server/service/metrics.h"
#include "server/service/symbol_service.h"
#include "server/service/tokens.h"
#include "store/backend/store_backend.h"
#include "store/catalog/store_catalog.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <thread>

namespace dumpsyms {
namespace {

// How long a stop waits for the requests in flight.
constexpr std::chrono::seconds kStopGrace{30};

int fail(const std::string& message) {
  std::fprintf(stderr, "symstore serve: %s\n", message.c_str());
  return 1;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

} // namespace

std::optional<uint64_t> parseByteSize(const std::string& text) {
  if (text.empty())
    return std::nullopt;
  size_t digits = text.find_first_not_of("0123456789");
  // A number alone is bytes; a number and one unit letter is that many units.
  if (digits == 0 || (digits == std::string::npos && text.size() > 19) ||
      (digits != std::string::npos && digits + 1 != text.size()))
    return std::nullopt;
  if (digits != std::string::npos && digits > 19)
    return std::nullopt;
  uint64_t value = std::stoull(text.substr(0, digits));
  unsigned shift = 0;
  if (digits != std::string::npos) {
    switch (text[digits]) {
    case 'K':
    case 'k':
      shift = 10;
      break;
    case 'M':
    case 'm':
      shift = 20;
      break;
    case 'G':
    case 'g':
      shift = 30;
      break;
    case 'T':
    case 't':
      shift = 40;
      break;
    default:
      return std::nullopt;
    }
  }
  if (value == 0 || (shift && value > (UINT64_MAX >> shift)))
    return std::nullopt;
  return value << shift;
}

// "N/min" (or N alone): crashes a minute.
std::optional<unsigned> parseCrashRate(const std::string& text) {
  std::string number = text;
  if (size_t slash = text.find('/'); slash != std::string::npos) {
    if (text.substr(slash) != "/min" && text.substr(slash) != "/m")
      return std::nullopt;
    number = text.substr(0, slash);
  }
  if (number.empty() || number.size() > 9 ||
      number.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  unsigned value = static_cast<unsigned>(std::stoul(number));
  if (value == 0)
    return std::nullopt;
  return value;
}

int runServe(const ServeOptions& options) {
  auto listen = parseListenAddress(options.listen);
  if (!listen)
    return fail("--listen: " + llvm::toString(listen.takeError()));

  TokenSet tokens;
  if (!options.tokens_file.empty()) {
    auto loaded = TokenSet::load(options.tokens_file);
    if (!loaded)
      return fail(llvm::toString(loaded.takeError()));
    tokens = std::move(*loaded);
  } else if (options.private_downloads) {
    return fail("--private needs --tokens FILE (no download could be allowed)");
  }

  uint64_t max_upload = limits::kMaxUploadBody; // unless --max-upload says otherwise
  if (!options.max_upload.empty()) {
    auto parsed = parseByteSize(options.max_upload);
    if (!parsed)
      return fail("--max-upload " + options.max_upload + ": expected a size (512K, 100M, 2G)");
    max_upload = *parsed;
  }

  StoreBackendSettings settings;
  settings.endpoint = options.endpoint.empty() ? environment("AWS_ENDPOINT_URL") : options.endpoint;
  settings.aws_access_key = environment("AWS_ACCESS_KEY_ID");
  settings.aws_secret_key = environment("AWS_SECRET_ACCESS_KEY");
  settings.aws_region = environment("AWS_REGION").empty() ? environment("AWS_DEFAULT_REGION")
                                                          : environment("AWS_REGION");
  settings.cache_dir =
      options.cache_dir.empty() ? userCacheDir("symstore", "serve") : options.cache_dir;
  settings.timeout_seconds = options.timeout_seconds;
  auto backend = openStoreBackend(options.store, settings);
  if (!backend)
    return fail(llvm::toString(backend.takeError()));

  UploadCounters counters;
  UploadSettings upload_settings;
  upload_settings.replace = options.replace;
  UploadService uploads(**backend, upload_settings, counters);
  DownloadService downloads(**backend, settings.cache_dir + "/variants");
  ServerMetrics metrics(counters);

  StoreCatalog catalog(**backend);
  BrowseSettings pages_settings;
  pages_settings.store_name = (*backend)->publicName();
  if (options.store.rfind("s3://", 0) != 0) {
    llvm::SmallString<256> real;
    pages_settings.store_directory =
        llvm::sys::fs::real_path(options.store, real) ? options.store : std::string(real);
  }
  pages_settings.cache_dir = settings.cache_dir;
  pages_settings.max_sym_bytes = std::min(max_upload, limits::kMaxCheckedSymbolFile);
  pages_settings.max_dump_bytes = std::min(max_upload, limits::kMaxWalkedDump);
  if (tokens.size() > 0)
    pages_settings.upload_token_allowed = [&tokens](const std::string& token) {
      return (tokens.permissions(token) & kPermissionUpload) != 0;
    };
  std::string pages_settings_store_directory = pages_settings.store_directory;
  BrowseService pages(**backend, catalog, std::move(pages_settings));
  std::unique_ptr<CrashInbox> inbox;
  uint64_t max_crash = limits::kMaxCrashSubmission;
  if (options.crashes) {
    CrashInboxOptions crash_options;
    crash_options.location = options.crash_store;
    if (crash_options.location.empty()) {
      std::string base = options.store;
      while (base.size() > 1 && base.back() == '/')
        base.pop_back();
      crash_options.location = base + "/.crashes";
    }
    crash_options.backend = settings;
    crash_options.cache_dir = settings.cache_dir;
    crash_options.store_directory = pages_settings_store_directory;
    crash_options.signature_rules = options.signature_rules;
    crash_options.workers =
        options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    if (!options.max_crash.empty()) {
      auto parsed = parseByteSize(options.max_crash);
      if (!parsed)
        return fail("--max-crash " + options.max_crash + ": expected a size (512K, 25M)");
      max_crash = *parsed;
    }
    if (!options.crash_rate.empty()) {
      auto rate = parseCrashRate(options.crash_rate);
      if (!rate)
        return fail("--crash-rate " + options.crash_rate + ": expected N/min (e.g. 60/min)");
      crash_options.service.rate_per_minute = *rate;
    }
    crash_options.service.limits.max_bytes = max_crash;
    crash_options.retention_days = options.crash_retention_days;
    if (!options.crash_max_bytes.empty()) {
      auto parsed = parseByteSize(options.crash_max_bytes);
      if (!parsed)
        return fail("--crash-max-bytes " + options.crash_max_bytes +
                    ": expected a size (500M, 20G)");
      crash_options.max_bytes = *parsed;
    }
    for (const std::string& name : options.drop_annotations)
      if (!name.empty())
        crash_options.service.limits.drop_annotations.insert(llvm::StringRef(name).lower());
    crash_options.service.store_name = (*backend)->publicName();
    crash_options.report = [quiet = options.quiet](const std::string& message) {
      if (!quiet)
        std::fprintf(stderr, "symstore serve: crashes: %s\n", message.c_str());
    };
    auto opened = CrashInbox::open(std::move(crash_options), **backend, catalog);
    if (!opened)
      return fail(llvm::toString(opened.takeError()));
    inbox = std::move(*opened);
    metrics.addSource([&inbox]() { return inbox->metricsText(); });
  }
  SymbolServiceSettings service_settings{options.private_downloads, options.crashes_public};
  SymbolService service(tokens, service_settings, downloads, uploads, pages, metrics,
                        [&catalog, &inbox]() {
                          catalog.invalidate();
                          if (inbox)
                            inbox->symbolsPublished();
                        });
  if (inbox)
    service.serveCrashes(inbox->service());

  HttpServerOptions server_options;
  server_options.host = listen->host;
  server_options.port = listen->port;
  server_options.threads = options.threads;
  // A thread waits while its handler reads from S3 (a miss of the local
  // cache is a GET of the whole object), and every connection it serves
  // waits with it: more threads than cores keep the others moving (the
  // server's own default, four per core, which a directory store gets
  // for the balance of connections between threads).
  if (options.threads == 0 && options.store.rfind("s3://", 0) == 0)
    server_options.threads = 4 * std::max(1u, std::thread::hardware_concurrency());
  server_options.connection_timeout_seconds = options.timeout_seconds;
  server_options.max_body_bytes = inbox ? std::max(max_upload, max_crash) : max_upload;
  server_options.spool_dir = (*backend)->spoolDirectory();
  // A crash submission is capped at --max-crash and taken apart by the
  // inbox itself (it may come gzip-coded); every other body as before.
  server_options.body_plan = [&inbox, max_upload, max_crash](const ServerRequest& request) {
    if (inbox && crashRouteOf(request.method, request.path) == CrashRoute::Submit)
      return BodyPlan{max_crash, false};
    return BodyPlan{max_upload, true};
  };

  // The server's threads inherit this mask: only sigwait below sees the
  // stop signals. A client that hangs up must not kill the server.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  bool quiet = options.quiet;
  auto server = HttpServer::start(
      server_options, [&](const ServerRequest& request) { return service.admit(request); },
      [&](ServerRequest& request) { return service.handle(request); },
      [&metrics, quiet](const ServerRequest& request, const ServerResponse& response,
                        uint64_t bytes, std::chrono::steady_clock::duration duration) {
        metrics.record(response.route, response.status, bytes, duration);
        if (!quiet)
          writeAccessLog(
              accessLogLine(request, response, bytes, duration, std::chrono::system_clock::now()));
      });
  if (!server)
    return fail(llvm::toString(server.takeError()));

  if (inbox)
    inbox->start();
  std::printf("listening on http://%s:%u\n", (*server)->host().c_str(),
              static_cast<unsigned>((*server)->port()));
  std::fflush(stdout);
  if (!quiet)
    std::fprintf(stderr, "symstore serve: %s, %zu token(s)%s%s\n", (*backend)->describe().c_str(),
                 tokens.size(), options.private_downloads ? ", private" : "",
                 options.replace ? ", uploads may replace files" : "");
  if (!quiet && inbox)
    std::fprintf(stderr, "symstore serve: crash inbox in %s%s\n", inbox->describe().c_str(),
                 tokens.size() > 0        ? ", read with a `crashes` token"
                 : options.crashes_public ? ", readable by anyone"
                                          : ", readable from this machine only");

  int received = 0;
  sigwait(&stop_signals, &received);
  if (!quiet)
    std::fprintf(stderr, "symstore serve: %s: finishing the requests in flight\n",
                 received == SIGTERM ? "SIGTERM" : "SIGINT");
  // A second signal while requests finish: stop at once (what was being
  // received stays in the spool until a later start removes it).
  std::thread([stop_signals]() {
    int again = 0;
    sigwait(&stop_signals, &again);
    std::fprintf(stderr, "symstore serve: a second signal: stopping now\n");
    std::_Exit(1);
  }).detach();
  (*server)->shutdown(kStopGrace);
  if (inbox)
    inbox->stop();
  return 0;
}

} // namespace dumpsyms
