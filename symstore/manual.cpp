#include "symstore/manual.h"

namespace dumpsyms {

const ToolManual& symstoreManual() {
  static const ToolManual manual{
      "symstore",
      "dump a whole release into a symbol store, and upload a store to a symbol server",
      "",
      {"symstore add walks files and directories (symlinks followed once), dumps every ELF "
       "binary, PE and PDB, and Mach-O slice once per module into STORE/<debug_file>/"
       "<DEBUG_ID>/<name>.sym, the layout Breakpad's processor, rust-minidump and symbol "
       "servers read. It pairs binaries with their separate debug files (build-id, "
       ".gnu_debuglink, dwz, .dwo/.dwp), PEs with their PDBs and Mach-O slices with their "
       "dSYMs by UUID wherever they are in the release, skips modules the store already has, "
       "runs the dumps in parallel within a memory budget, and never stops on a bad file: it "
       "is failed in the manifest and on standard error. --shard K/N splits a release over N "
       "machines with no coordinator.",
       "symstore upload sends what a server lacks: plain HTTP PUT (WebDAV, artifact "
       "repositories), S3 (AWS Signature V4), Breakpad's sym-upload v1 and v2, and Mozilla's "
       "Tecken. Credentials come only from the environment (SYMSTORE_TOKEN, "
       "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION) and are never printed; "
       "failures are retried with backoff; a second upload sends nothing."},
      {},
      {{"0", "every candidate was stored (or every file sent)"},
       {"1", "some candidate failed to dump, or some file could not be sent (the others "
             "were)"},
       {"2", "the command line is wrong"}},
      {{"symstore add symbols build/out --manifest symbols.json -d",
        "every binary of a release, with inlined calls, and a JSON manifest of the run"},
       {"symstore add symbols release --index",
        "the same with each symbol file's lookup index beside it"},
       {"SYMSTORE_TOKEN=... symstore upload symbols --to https://symbols.example/store",
        "the store to a server that takes HTTP PUT"},
       {"symstore add /store /release -d --shard 3/8",
        "this machine's share of a release split over eight"}},
      {"dump_syms", "symtool"}};
  return manual;
}

} // namespace dumpsyms
