#include "tools/symstore/manual.h"

namespace dumpsyms {

const ToolManual& symstoreManual() {
  static const ToolManual manual{
      "symstore",
      "dump a whole release into a symbol store, upload a store to a symbol server, or serve it",
      "",
      {"symstore add walks files and directories (symlinks followed once), dumps every ELF "
       "binary, PE and PDB, and Mach-O slice once per module into STORE/<debug_file>/"
       "<DEBUG_ID>/<name>.sym, the layout Breakpad's processor, rust-minidump and symbol "
       "servers read. It pairs binaries with their separate debug files (build-id, "
       ".gnu_debuglink, dwz, .dwo/.dwp), PEs with their PDBs and Mach-O slices with their "
       "dSYMs by UUID wherever they are in the release, skips modules the store already has, "
       "runs the dumps in parallel within a memory budget, and never stops on a bad file: it "
       "is failed in the manifest and on standard error. --shard K/N splits a release over N "
       "machines with no coordinator. With --keep-binaries it also keeps each binary and its "
       "separate debug file (or PDB) in the store, deduplicated as the symbol files are, with "
       "an index by build id, for the debuginfod and Microsoft symbol-server clients of "
       "symstore serve.",
       "symstore upload sends what a server lacks: plain HTTP PUT (WebDAV, artifact "
       "repositories), S3 (AWS Signature V4), Breakpad's sym-upload v1 and v2, and Mozilla's "
       "Tecken. Credentials come only from the environment (SYMSTORE_TOKEN, "
       "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION) and are never printed; "
       "failures are retried with backoff; a second upload sends nothing. put and s3 also "
       "send the binaries and .build-id entries --keep-binaries kept (after the .sym files, "
       "the entries last; --no-binaries leaves them out), so that symstore serve over the "
       "bucket answers debuginfod and SSQP clients; breakpad-v1, breakpad-v2 and tecken "
       "carry .sym files only.",
       "symstore serve makes a store (a directory, or s3://BUCKET/PREFIX with the endpoint, "
       "region and credentials the S3 upload reads) a symbol server for every consumer: "
       "Breakpad and Tecken clients (GET /<debug_file>/<DEBUG_ID>/<name>.sym, the id matched "
       "without regard to case; /<code_file>/<CODE_ID>/... redirects to it), debuginfod clients "
       "such as gdb, lldb and debuginfod-find (/buildid/<BUILDID>/debuginfo, /executable, "
       "/section/<name>) and Microsoft symbol-server clients (/<pdb>/<GUIDAGE>/<pdb>, "
       "/<exe>/<TIMESTAMPSIZE>/<exe>) for stores made with add --keep-binaries. Answers carry "
       "ETag and Last-Modified (304), ranges, and gzip when asked; a missing file is 404, never "
       "403. It takes uploads from every protocol symstore upload speaks (Tecken's POST "
       "/upload/, Breakpad's v1 form at /symupload and /upload/, sym-upload-v2 under /v1/, PUT "
       "to the store path), each file checked and published atomically; other bytes for a file "
       "the store has are refused with 409 unless --replace.",
       "Tokens (--tokens FILE): one a line, then its permissions separated by spaces (TOKEN "
       "upload, TOKEN download, TOKEN upload download); a word starting with # starts a "
       "comment. A request carries its token as an Auth-Token header, Authorization: Bearer "
       "TOKEN, or ?key=TOKEN. Uploads need a token with upload, and with --private downloads "
       "need one with download: no token is 401, an unknown or too weak one 403. Tokens are "
       "compared in constant time and never logged. /healthz answers ok; /metrics gives "
       "Prometheus text (requests by route and status, bytes, a latency histogram, uploads, "
       "refusals). Each request is one line on standard error (time, client, method, path "
       "without its query, status, bytes, milliseconds, route) unless --quiet. The first line "
       "on standard output is `listening on http://HOST:PORT`. SIGTERM or SIGINT stops "
       "accepting, lets the requests in flight finish (up to 30 s) and exits 0. A server keeps "
       "nothing of its own beyond the store: several over one bucket or shared directory "
       "answer alike."},
      {},
      {{"0", "every candidate was stored (or every file sent, or the server was stopped by "
             "SIGTERM or SIGINT)"},
       {"1", "some candidate failed to dump, or some file could not be sent (the others "
             "were), or the server could not start (its store, tokens file or address)"},
       {"2", "the command line is wrong"}},
      {{"symstore add symbols build/out --manifest symbols.json -d",
        "every binary of a release, with inlined calls, and a JSON manifest of the run"},
       {"symstore add symbols release --index",
        "the same with each symbol file's lookup index beside it"},
       {"SYMSTORE_TOKEN=... symstore upload symbols --to https://symbols.example/store",
        "the store to a server that takes HTTP PUT"},
       {"symstore add /store /release -d --shard 3/8",
        "this machine's share of a release split over eight"},
       {"symstore serve symbols --listen 0.0.0.0:8080 --tokens /etc/symstore/tokens",
        "serve a store to crash processors, gdb (DEBUGINFOD_URLS=http://HOST:8080) and Visual "
        "Studio, and take uploads from holders of an upload token"},
       {"symstore serve s3://symbols/prod --endpoint http://minio:9000 --private --tokens t",
        "serve an S3 bucket, downloads too only with a token"}},
      {"dump_syms", "symtool"}};
  return manual;
}

} // namespace dumpsyms
