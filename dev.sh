#!/usr/bin/env bash
# One entry point for set-up, build, dump and test on Debian 12.
#   ./dev.sh dump [BINARY [DEBUG_DIR...]] [dump_syms options]
#   ./dev.sh test
#   ./dev.sh build
#   ./dev.sh fuzz TARGET [SECONDS]   (TARGET: postfix sym_parser crash_text
#                                     core_file dump_elf dwarf_sections pdb pe
#                                     http_answers)
# Each command first installs whatever Debian packages are missing.
set -euo pipefail
cd "$(dirname "$0")"
BUILD=${BUILD_DIR:-build}

PACKAGES=(
  # build
  cmake ninja-build g++ pkg-config
  # (not the gcc-multilib meta package: Debian makes it conflict with the
  # cross compilers below; fixtures.py supplies the <asm/...> it would add)
  llvm-19-dev libcli11-dev libfmt-dev libgtest-dev googletest
  zlib1g-dev libzstd-dev liblzma-dev libdebuginfod-dev
  # fixtures and oracles
  llvm-19 clang-19 lld-19 gcc-12-multilib g++-12-multilib
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu gcc-arm-linux-gnueabihf
  gcc-riscv64-linux-gnu gcc-mips64el-linux-gnuabi64
  binutils elfutils dwz xz-utils gdb debuginfod python3 file
  python3.11-dbg libc6-dbg
  # arm64 crashes for the stack-walk test: run under qemu-user, read by gdb
  qemu-user gdb-multiarch
  # symbol servers the upload test talks to
  nginx
  # uploading
  libcurl4-openssl-dev libzip-dev
)

# Test tools from npm, installed into the build tree.
NPM_PACKAGES=(@sentry/cli-linux-x64 s3rver)

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

build() {
  install_missing
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUMP_SYMS_WERROR=ON \
    -DSHARED_DIR="$(shared_dir)" >&2
  cmake --build "$BUILD" -j "$(nproc)" >&2
}

# libFuzzer builds: clang-19 with ASan and UBSan, in a tree of their own.
FUZZ_PACKAGES=(clang-19 libclang-rt-19-dev libfuzzer-19-dev)

fuzz() {
  local target=${1:-} seconds=${2:-60}
  local -A names=([postfix]=postfix [sym_parser]=symParser [crash_text]=crashText
                  [core_file]=coreFile [dump_elf]=dumpElf [dwarf_sections]=dwarfSections
                  [pdb]=pdb [pe]=pe [http_answers]=httpAnswers)
  if [ -z "$target" ] || [ -z "${names[$target]:-}" ]; then
    echo "usage: ./dev.sh fuzz TARGET [SECONDS]; TARGET one of: ${!names[*]}" >&2
    exit 2
  fi
  PACKAGES+=("${FUZZ_PACKAGES[@]}")
  install_missing
  local tree=${FUZZ_BUILD_DIR:-build-fuzz}
  cmake -S . -B "$tree" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFUZZING=ON \
    -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >&2
  cmake --build "$tree" --target "fuzz_${names[$target]}" -j "$(nproc)" >&2
  # The corpus grows in the build tree, from the committed seeds and every
  # kept regression; new crashes land in tests/fuzz/regressions/TARGET.
  local corpus="$tree/corpus/$target" crashes="tests/fuzz/regressions/$target"
  mkdir -p "$corpus" "$crashes"
  cp -n tests/fuzz/seeds/"$target"/* "$corpus"/ 2>/dev/null || true
  local dict=()
  case "$target" in
    dump_elf | dwarf_sections) dict=("-dict=tests/fuzz/dwarf_sections.dict") ;;
  esac
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    "$tree/tests/fuzz/fuzz_${names[$target]}" "$corpus" "$crashes" "${dict[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
    -artifact_prefix="$crashes/" -print_final_stats=1
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
      set -- "$BUILD/dump_syms/dump_syms" --store "$BUILD/symbols"
    fi
    exec "$BUILD/dump_syms/dump_syms" "$@"
    ;;
  fuzz)
    fuzz "$@"
    ;;
  test)
    build
    install_npm_tools
    cd "$BUILD" && ctest --output-on-failure -j "$(nproc)"
    ;;
  *)
    echo "usage: ./dev.sh dump [BINARY [DEBUG_DIR...]] [options] | test | build | fuzz TARGET [SECONDS]" >&2
    exit 2
    ;;
esac
