#!/bin/sh
# The symbols job of a release pipeline (README's CI recipe runs it, and so
# does tests/e2e/test_install.py): install the dump-syms package, dump the
# release into a symbol store with the lookup indexes beside the files,
# upload what the server lacks.
#
#   DEB=dump-syms_0.1.0_amd64.deb RELEASE=out/ UPLOAD_URL=https://symbols.example/store \
#     SYMSTORE_TOKEN=... sh release-symbols.sh
#
# STORE (default: symbols) is where the store is kept between runs; a
# second run dumps and sends only what is new. INSTALL_ROOT, when set,
# unpacks the package there instead of installing it system-wide.
set -eu
: "${DEB:?the dump-syms .deb to install}"
: "${RELEASE:?the release tree to dump}"
: "${UPLOAD_URL:?the symbol server to upload to}"
STORE=${STORE:-symbols}

if [ -n "${INSTALL_ROOT:-}" ]; then
  dpkg-deb -x "$DEB" "$INSTALL_ROOT"
  PATH="$INSTALL_ROOT/usr/bin:$PATH"
else
  apt-get install -y --no-install-recommends "$(realpath "$DEB")"
fi

symstore add "$STORE" "$RELEASE" -d --index --manifest "$STORE.manifest.json"
symstore upload "$STORE" --to "$UPLOAD_URL"
