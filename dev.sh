#!/usr/bin/env bash
# One entry point for set-up, build, dump and test on Debian 12.
#   ./dev.sh dump [BINARY [DEBUG_DIR...]] [dump_syms options]
#   ./dev.sh test             the normal suite, then the sanitizer suite
#   ./dev.sh test-normal      the normal build and suite only
#   ./dev.sh test-sanitized   the ASan+UBSan build and suite only, fuzz runs included
#   ./dev.sh build
#   ./dev.sh package          the Debian package, in build/package/
#   ./dev.sh fuzz TARGET [SECONDS]   (TARGET: a name in tests/fuzz/CMakeLists.txt)
#   ./dev.sh campaign [HOURS] [TARGET...]   every target to HOURS CPU-hours, then the table
# Each command first installs whatever Debian packages are missing.
set -euo pipefail
cd "$(dirname "$0")"
BUILD=${BUILD_DIR:-build}
SAN_BUILD=${SAN_BUILD_DIR:-build-san}

PACKAGES=(
  # build
  cmake ninja-build g++ pkg-config
  # (not the gcc-multilib meta package: Debian makes it conflict with the
  # cross compilers below; fixtures.py supplies the <asm/...> it would add)
  llvm-19-dev libcli11-dev libfmt-dev libgtest-dev googletest
  zlib1g-dev libisal-dev libzstd-dev liblzma-dev libdebuginfod-dev
  # fixtures and oracles
  llvm-19 clang-19 lld-19 gcc-12-multilib g++-12-multilib
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu gcc-arm-linux-gnueabihf
  gcc-riscv64-linux-gnu gcc-mips64el-linux-gnuabi64
  # 32-bit arm programs (not freestanding) for the minidump walk under qemu-arm
  libc6-dev-armhf-cross
  binutils elfutils dwz xz-utils gdb debuginfod python3 file
  python3.11-dbg libc6-dbg
  # arm64 crashes for the stack-walk test: run under qemu-user, read by gdb
  qemu-user gdb-multiarch
  # minidumps: lldb writes its own of a crash
  lldb-19
  # Windows minidumps: Wine runs the crash programs (x64 and x86), its
  # debugger writes the dump
  wine64 wine32:i386
  # symbol servers the upload test talks to
  nginx
  # uploading
  libcurl4-openssl-dev libzip-dev
  # symstore serve: libmicrohttpd (what elfutils' debuginfod is built on);
  # the crash inbox's index: SQLite
  libmicrohttpd-dev libsqlite3-dev
  # PDBs from Windows symbol servers: .pd_/.dl_ CAB files (gcab makes the
  # tests' own)
  libmspack-dev gcab
  # the store's web pages: a headless browser renders them (fonts for its
  # screenshots; puppeteer-core below drives it, never downloads one)
  chromium fonts-dejavu-core
  # Windows built by MinGW-w64 (PE with DWARF): GCC's cross compilers, Rust's
  # *-pc-windows-gnu standard library; and each language's names (rustc, gdc,
  # gfortran, golang-go build the fixtures whose functions the tests name)
  gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 gcc-mingw-w64-i686 g++-mingw-w64-i686
  rustc libstd-rust-dev-windows gdc gfortran golang-go
  # Mach-O fixtures: ld64.lld-19 (lld-19), dsymutil-19 and llvm-lipo-19 (llvm-19)
  # the Debian package: Depends by dpkg-shlibdeps, checked by lintian, its
  # man pages read by man
  dpkg-dev lintian man-db groff-base
)

# Test tools from npm, installed into the build tree.
NPM_PACKAGES=(@sentry/cli-linux-x64 s3rver puppeteer-core)

# (in the normal tree; the sanitizer tree uses the same: NPM_TOOLS_DIR)
install_npm_tools() {
  local missing=()
  for p in "${NPM_PACKAGES[@]}"; do
    [ -d "$BUILD/npm/node_modules/$p" ] || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v npm >/dev/null; then
    # (a machine whose node came with its own npm keeps it)
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends nodejs npm >&2
  fi
  echo "dev.sh: installing ${NPM_PACKAGES[*]} from npm" >&2
  mkdir -p "$BUILD/npm"
  # All in one command: npm prunes what a later install does not name.
  npm install --no-audit --no-fund --silent --prefix "$BUILD/npm" "${NPM_PACKAGES[@]}" >&2
}

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "dev.sh: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  # wine32 is an i386 package: Debian needs the architecture enabled first.
  if printf '%s\n' "${missing[@]}" | grep -q ':i386$' &&
    ! dpkg --print-foreign-architectures | grep -qx i386; then
    $sudo dpkg --add-architecture i386
  fi
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# The shared corpus the tests read: ../shared beside this checkout, or, for
# a clone made elsewhere, beside the repository it was cloned from.
shared_dir() {
  if [ -n "${SHARED_DIR:-}" ]; then echo "$SHARED_DIR"; return; fi
  if [ -d ../shared ]; then (cd ../shared && pwd); return; fi
  local origin
  origin=$(git remote get-url origin 2>/dev/null || true)
  if [ -n "$origin" ] && [ -d "$origin/../shared" ]; then (cd "$origin/../shared" && pwd); return; fi
  echo "$(cd .. && pwd)/shared"
}

# -g1: line tables and function names (what a profile or a backtrace of the
# tools reads) at a third less compile time than full debug info.
build() {
  install_missing
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUMP_SYMS_WERROR=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DSHARED_DIR="$(shared_dir)" >&2
  cmake --build "$BUILD" -j "$(nproc)" >&2
}

# The sanitizer tree: clang-19 with ASan and UBSan on all our code, which
# also carries libFuzzer's coverage instrumentation so that the same tree
# links the fuzz targets (FUZZING=ON). -O1 and line tables only: a shorter
# build, and reports still name every frame's file and line.
SAN_PACKAGES=(clang-19 libclang-rt-19-dev libfuzzer-19-dev)

configure_sanitized() {
  PACKAGES+=("${SAN_PACKAGES[@]}")
  install_missing
  cmake -S . -B "$SAN_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUMP_SYMS_WERROR=ON -DFUZZING=ON \
    -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined -fuse-ld=lld" \
    -DSHARED_DIR="$(shared_dir)" -DNPM_TOOLS_DIR="$(realpath -m "$BUILD")/npm" \
    -DFUZZ_SECONDS="${FUZZ_SECONDS:-20}" >&2
}

# One test more than there are cores: a good part of the suite waits on
# servers, wine and chromium (the two-core runs kept the cores 82% busy).
ctest_jobs() {
  echo $(($(nproc) + 1))
}

test_normal() {
  build
  install_npm_tools
  (cd "$BUILD" && ctest --output-on-failure -j "$(ctest_jobs)")
}

# The whole suite again in the sanitizer tree (the e2e tests run the
# sanitized tools), and each fuzz target for FUZZ_SECONDS (20) from its seeds: a smoke run that
# keeps CI within its hour; the campaign (`./dev.sh campaign`) is where the
# targets get their CPU-hours.
test_sanitized() {
  configure_sanitized
  install_npm_tools
  cmake --build "$SAN_BUILD" -j "$(nproc)" >&2
  (cd "$SAN_BUILD" && ctest --output-on-failure -j "$(ctest_jobs)")
}

# A longer run of one target: its corpus grows in the sanitizer tree, and
# what crashes lands in tests/fuzz/regressions/TARGET (run_fuzzer.py).
fuzz() {
  local target=${1:-} seconds=${2:-60}
  if [ -z "$target" ]; then
    echo "usage: ./dev.sh fuzz TARGET [SECONDS]; TARGET: a name in tests/fuzz/CMakeLists.txt's FUZZ_TARGETS" >&2
    exit 2
  fi
  configure_sanitized
  local targets="$SAN_BUILD/fuzz_targets.tsv"
  if ! cut -f1 "$targets" | grep -qxF -- "$target"; then
    echo "dev.sh: no fuzz target $target; targets:" $(cut -f1 "$targets") >&2
    exit 2
  fi
  cmake --build "$SAN_BUILD" --target "fuzz_$target" -j "$(nproc)" >&2
  python3 tests/fuzz/run_fuzzer.py "$targets" "$target" --seconds "$seconds" --campaign
}

# The campaign: every target (or those named) until each has HOURS (1)
# CPU-hours in its ledger, nproc targets at a time; ends with the table that
# docs/FUZZING.md keeps. Interrupted, it goes on where it stopped.
campaign() {
  local hours=${1:-1}
  [ $# -gt 0 ] && shift
  configure_sanitized
  local targets="$SAN_BUILD/fuzz_targets.tsv" names=("$@")
  [ ${#names[@]} -gt 0 ] || mapfile -t names < <(cut -f1 "$targets")
  cmake --build "$SAN_BUILD" -j "$(nproc)" --target "${names[@]/#/fuzz_}" >&2
  python3 tests/fuzz/campaign.py "$targets" --hours "$hours" "${names[@]}"
}

# The Debian package (CPack), dated by the commit so that two builds of it
# are the same: build/package/dump-syms_VERSION_ARCH.deb.
package() {
  build
  local epoch
  epoch=$(git log -1 --format=%ct 2>/dev/null || echo 0)
  (cd "$BUILD" && SOURCE_DATE_EPOCH=$epoch cpack -G DEB -B "$(pwd)/package" >&2)
  ls "$BUILD"/package/*.deb
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  build)
    build
    ;;
  dump)
    build
    if [ $# -eq 0 ]; then
      # No binary given: dump the tool's own symbols into a symbol store.
      set -- "$BUILD/tools/dump_syms/dump_syms" --store "$BUILD/symbols"
    fi
    exec "$BUILD/tools/dump_syms/dump_syms" "$@"
    ;;
  fuzz)
    fuzz "$@"
    ;;
  package)
    package
    ;;
  campaign)
    campaign "$@"
    ;;
  test)
    # A failing normal suite ends the run there, so that the output always
    # ends with the summary of the suite that failed.
    test_normal
    test_sanitized
    ;;
  test-normal)
    test_normal
    ;;
  test-sanitized)
    test_sanitized
    ;;
  *)
    echo "usage: ./dev.sh dump [BINARY [DEBUG_DIR...]] [options] | test | test-normal | test-sanitized | build | package | fuzz TARGET [SECONDS] | campaign [HOURS] [TARGET...]" >&2
    exit 2
    ;;
esac
