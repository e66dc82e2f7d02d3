// symstore: symbol stores for whole releases. `add` dumps every binary of a
// release into a store, `upload` sends a store to a symbol server, and
// `dump-one` (internal) is the child process that dumps one binary for `add`.
#include "common/command_line/command_line.h"
#include "common/json/json_text.h"
#include "dump/flows/options.h"
#include "dump/release/add_command.h"
#include "dump/release/dump_into_store.h"
#include "dump/release/memory_limit.h"
#include "server/service/serve_command.h"
#include "store/upload/upload_runner.h"
#include "tools/shared_flags/dump_flags.h"
#include "tools/symstore/manual.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <llvm/Support/JSON.h>
#include <unistd.h>

namespace {

using namespace dumpsyms;

bool parseShard(const std::string& text, ShardSpec& shard) {
  unsigned k = 0, n = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%u%c%u%c", &k, &slash, &n, &extra) != 3 || slash != '/' ||
      n == 0 || k >= n)
    return false;
  shard = {k, n};
  return true;
}

} // namespace

int main(int argc, char** argv) {
  const std::string* current_input = nullptr;
  installInputErrorHandlers("symstore", &current_input);

  CLI::App app{"Symbol stores for whole releases.", "symstore"};
  app.require_subcommand(1);

  AddOptions add;
  std::string shard = "0/1";
  CLI::App* add_command = app.add_subcommand(
      "add", "dump every ELF binary under PATH... into STORE/<name>/<DEBUG_ID>/<name>.sym");
  add_command->add_option("STORE", add.store, "the symbol store")->required();
  add_command->add_option("PATH", add.paths, "files and directories of the release")->required();
  add_command
      ->add_option("--debug-dir", add.dump.debug_dirs,
                   "search here for separate debug files too (as dump_syms' DEBUG_DIR)")
      ->allow_extra_args(false);
  add_command->add_option("-j,--jobs", add.jobs, "threads in all (default: one per core)");
  std::string memory_limit;
  add_command->add_option(
      "--memory-limit", memory_limit,
      "what the dumps running at once may hold, by their estimates: SIZE (512M, 8G, 50%) or "
      "'largest' (no more than the largest dump); default: half the machine's memory");
  add_command->add_option("--manifest", add.manifest, "write a JSON manifest of the run here");
  add_command->add_flag("--force", add.force, "dump modules the store already has again");
  add_command
      ->add_option("--release", add.release,
                   "record the release's modules (name, path, debug id) in "
                   "STORE/.releases/, for the crash inbox to read logged backtraces with")
      ->option_text("PRODUCT/VERSION");
  add_command->add_flag("--index", add.dump.write_index,
                        "also write each symbol file's lookup index beside it (<name>.sym.idx), "
                        "for symtool and minidump_stackwalk to map instead of parse");
  add_command->add_flag("--keep-binaries", add.dump.keep_binaries,
                        "also keep each binary and its debug file (or PDB) in the store, for "
                        "debuginfod and Microsoft symbol-server clients of `symstore serve`");
  add_command->add_option("--shard", shard, "K/N: take only shard K (0..N-1) of N of the release");
  add_command->add_flag("-v,--verbose", add.verbose, "print every warning");
  add_command->add_flag("-q,--quiet", add.quiet, "print nothing but errors");
  addDumpShapeOptions(*add_command, add.dump);

  UploadRunOptions upload;
  double max_batch_mb = 256;
  CLI::App* upload_command =
      app.add_subcommand("upload", "send a store's symbol files to a symbol server");
  upload_command->add_option("STORE", upload.store, "the symbol store")->required();
  upload_command
      ->add_option("--to", upload.config.url, "the server: a URL, or s3://BUCKET[/PREFIX]")
      ->required();
  upload_command
      ->add_option("--protocol", upload.config.protocol, "how to talk to it (default: put)")
      ->check(CLI::IsMember({"put", "s3", "breakpad-v1", "breakpad-v2", "tecken"}))
      ->option_text("put|s3|breakpad-v1|breakpad-v2|tecken");
  upload_command->add_option("-j,--jobs", upload.jobs, "requests at a time (default: 4)")
      ->check(CLI::Range(1, 256));
  upload_command->add_option("--retries", upload.config.retry.retries,
                             "tries after the first, on connection errors, timeouts, 408, 429, 5xx "
                             "(default: 5)");
  upload_command
      ->add_option("--timeout", upload.config.timeout_seconds,
                   "seconds to connect, and that a transfer may stall (default: 60)")
      ->check(CLI::Range(1, 86400));
  upload_command->add_flag("--gzip", upload.config.gzip,
                           "send files gzip-compressed (Content-Encoding: gzip)");
  bool no_binaries = false;
  upload_command->add_flag("--no-binaries", no_binaries,
                           "put, s3: send the .sym files only, not the binaries and .build-id "
                           "entries symstore add --keep-binaries kept (breakpad-v1, breakpad-v2 "
                           "and tecken carry .sym files only)");
  upload_command->add_flag("--dry-run", upload.dry_run, "list what would be sent; send nothing");
  upload_command->add_flag("--verify", upload.config.verify,
                           "put, s3: a HEAD after each upload must find the file");
  upload_command->add_option("--endpoint", upload.config.endpoint,
                             "s3: the service URL (MinIO, a local S3, ...)");
  upload_command
      ->add_option("--max-batch", max_batch_mb, "tecken: the largest request, in MB (default: 256)")
      ->check(CLI::PositiveNumber);
  upload_command->add_flag("-v,--verbose", upload.verbose, "say what happens to every file");
  upload_command->add_flag("-q,--quiet", upload.quiet, "print nothing but errors");

  ServeOptions serve;
  CLI::App* serve_command = app.add_subcommand(
      "serve", "serve a store over HTTP to Breakpad/Tecken, debuginfod and Microsoft symbol-server "
               "clients, and take uploads");
  serve_command->add_option("STORE", serve.store, "the store: a directory, or s3://BUCKET[/PREFIX]")
      ->required();
  serve_command
      ->add_option("--listen", serve.listen,
                   "where to listen ([ADDRESS]:PORT for IPv6; port 0: any free port; default: "
                   "127.0.0.1:8080)")
      ->option_text("HOST:PORT");
  serve_command
      ->add_option("--tokens", serve.tokens_file,
                   "tokens, one a line with its permissions: TOKEN upload download (uploads "
                   "need one)")
      ->option_text("FILE");
  serve_command->add_flag("--private", serve.private_downloads,
                          "downloads need a token with the download permission too");
  serve_command->add_flag("--replace", serve.replace,
                          "an upload with other bytes for a file the store has replaces it "
                          "(default: 409)");
  serve_command
      ->add_option("--endpoint", serve.endpoint,
                   "s3: the service URL (default: AWS_ENDPOINT_URL, else AWS)")
      ->option_text("URL");
  serve_command->add_option("--threads", serve.threads, "server threads (default: four per core)")
      ->check(CLI::Range(0, 1024))
      ->option_text("N");
  serve_command
      ->add_option("--cache-dir", serve.cache_dir,
                   "where gzip variants and S3 objects are kept (default: "
                   "$XDG_CACHE_HOME/symstore/serve)")
      ->option_text("DIR");
  serve_command
      ->add_option("--max-upload", serve.max_upload,
                   "the largest request body: 512K, 100M, 2G (default: 4G)")
      ->option_text("SIZE");
  serve_command
      ->add_option("--timeout", serve.timeout_seconds,
                   "seconds a client may stay idle, mid-request or between requests (default: 30)")
      ->check(CLI::Range(1, 86400))
      ->option_text("SECONDS");
  serve_command->add_flag("-q,--quiet", serve.quiet, "no access log on standard error");
  CLI::Option* crashes =
      serve_command
          ->add_option("--crashes", serve.crash_store,
                       "take crash reports too (POST /submit), kept in CRASH_STORE: a directory "
                       "or s3://BUCKET[/PREFIX] (default: STORE/.crashes)")
          ->expected(0, 1)
          ->option_text("[CRASH_STORE]");
  serve_command
      ->add_option("--signature-rules", serve.signature_rules,
                   "sign crashes with DIR/sentinel.txt, irrelevant.txt and prefix.txt instead of "
                   "ours (read again when they change)")
      ->option_text("DIR");
  serve_command
      ->add_option("--crash-rate", serve.crash_rate,
                   "crash reports a client address or install id may send a minute; more are "
                   "answered Discarded=rule_rate")
      ->option_text("N/min");
  serve_command
      ->add_option("--max-crash", serve.max_crash,
                   "largest crash report, compressed or inflated (default: 25M)")
      ->option_text("SIZE");
  serve_command
      ->add_option("--drop-annotations", serve.drop_annotations,
                   "annotations never stored (default: Email,URL,Comments)")
      ->delimiter(',')
      ->option_text("A,B,...");
  serve_command
      ->add_option("--crash-retention", serve.crash_retention_days,
                   "remove the dumps and attachments of crashes older than DAYS (their "
                   "signatures and counts stay)")
      ->check(CLI::Range(1, 36500))
      ->option_text("DAYS");
  serve_command
      ->add_option("--crash-max-bytes", serve.crash_max_bytes,
                   "remove the oldest crashes' dumps and attachments past SIZE in all (their "
                   "signatures and counts stay)")
      ->option_text("SIZE");
  serve_command->add_flag("--crashes-public", serve.crashes_public,
                          "without --tokens, show crashes to any client, not only this machine");

  // The child process of `add`: one binary into the store, a JSON report on stdout.
  Options one;
  CLI::App* dump_one = app.add_subcommand("dump-one", "");
  dump_one->group(""); // internal: not listed in --help
  dump_one->add_option("--store", one.store)->required();
  dump_one->add_option("BINARY", one.binary)->required();
  dump_one->add_option("DEBUG_DIR", one.debug_dirs);
  dump_one->add_option("-j,--jobs", one.jobs);
  dump_one->add_option("--debug-file", one.debug_file);
  dump_one->add_option("--arch", one.arch);
  dump_one->add_flag("--index", one.write_index);
  dump_one->add_flag("--keep-binaries", one.keep_binaries);
  addDumpShapeOptions(*dump_one, one);

  applyManual(app, symstoreManual());
  if (auto status = printManualIfAsked(symstoreManual(), &app, argc, argv))
    return *status;
  if (auto status = parseCommandLine(app, argc, argv))
    return *status;

  if (*dump_one) {
    current_input = &one.binary;
    ManifestEntry entry = dumpIntoStore(one);
    std::string text = jsonText(toJson(entry));
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return 0;
  }

  if (*serve_command) {
    serve.crashes = crashes->count() > 0;
    return runServe(serve);
  }

  if (*upload_command) {
    // Secrets come from the environment only, never from the command line.
    auto env = [](const char* name) {
      const char* value = std::getenv(name);
      return std::string(value ? value : "");
    };
    upload.config.token = env("SYMSTORE_TOKEN");
    upload.config.aws_access_key = env("AWS_ACCESS_KEY_ID");
    upload.config.aws_secret_key = env("AWS_SECRET_ACCESS_KEY");
    upload.config.aws_region =
        env("AWS_REGION").empty() ? env("AWS_DEFAULT_REGION") : env("AWS_REGION");
    upload.config.max_batch_bytes = static_cast<uint64_t>(max_batch_mb * 1e6);
    upload.config.binaries = !no_binaries;
    return runUpload(upload);
  }

  if (!parseShard(shard, add.shard)) {
    std::fprintf(stderr,
                 "symstore: --shard %s: expected K/N with 0 <= K < N\n"
                 "Run with --help for usage.\n",
                 shard.c_str());
    return kExitUsage;
  }
  if (memory_limit.empty()) {
    add.memory_limit = defaultMemoryLimit();
  } else if (auto limit = parseMemoryLimit(memory_limit)) {
    add.memory_limit = *limit;
  } else {
    std::fprintf(stderr,
                 "symstore: --memory-limit %s: expected a size (512M, 8G, 50%%) or 'largest'\n"
                 "Run with --help for usage.\n",
                 memory_limit.c_str());
    return kExitUsage;
  }
  return runAdd(add);
}
