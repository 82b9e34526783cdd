#!/usr/bin/env bash
# npm run release: what a release uploads, in release/ (or $RELEASE_DIR):
#   audit-scan-v<version>-linux-amd64.tar.gz   the single-file binary and the README (krew's archive)
#   audit-scan-<version>.tgz                   the npm package (npm i -g ./audit-scan-<version>.tgz)
#   SHA256SUMS                                 both archives' sha256
#   audit-scan.yaml                            deploy/krew/audit-scan.yaml with the version, URL and sha256
# Environment: RELEASE_URL_BASE, where the archives will be downloaded from (the krew manifest's uri);
# RELEASE_HOMEPAGE; AUDIT_SCAN_BINARY, a binary already built (npm run build:binary) to package instead of
# building one.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=$(node -p "require('./package.json').version")
OUT=${RELEASE_DIR:-release}
URL_BASE=${RELEASE_URL_BASE:-}
HOMEPAGE=${RELEASE_HOMEPAGE:-https://www.npmjs.com/package/audit-scan}
if [ -z "$URL_BASE" ]; then
  URL_BASE="https://example.invalid/audit-scan/v$VERSION"
  echo "release: RELEASE_URL_BASE is not set; the krew manifest points at $URL_BASE" >&2
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

if [ -n "${AUDIT_SCAN_BINARY:-}" ]; then
  BIN=$AUDIT_SCAN_BINARY
else
  npm run --silent build
  BIN=$(node scripts/build-binary.mjs --out "$OUT")
fi
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || { echo "release: the krew manifest names linux/amd64; this is $(uname -s)-$(uname -m)" >&2; exit 1; }

# the archive: the same bytes for the same binary (sorted names, no owners, fixed times, gzip without a name)
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
cp "$BIN" "$STAGE/audit-scan-linux-x64"
cp README.md "$STAGE/README.md"
cp LICENSE "$STAGE/LICENSE"
chmod 755 "$STAGE/audit-scan-linux-x64"
chmod 644 "$STAGE/README.md" "$STAGE/LICENSE"
ARCHIVE="audit-scan-v$VERSION-linux-amd64.tar.gz"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$STAGE" -cf - LICENSE audit-scan-linux-x64 README.md | gzip -n > "$OUT/$ARCHIVE"

# the npm package (dist/ was built above, or by whoever built the binary)
TGZ=$(npm pack --ignore-scripts --silent --pack-destination "$OUT")

SHA=$(sha256sum "$OUT/$ARCHIVE" | cut -d' ' -f1)
(cd "$OUT" && sha256sum "$ARCHIVE" "$TGZ" > SHA256SUMS)
sed -e "s|@VERSION@|$VERSION|g" -e "s|@URL_BASE@|$URL_BASE|g" -e "s|@HOMEPAGE@|$HOMEPAGE|g" -e "s|@SHA256_LINUX_AMD64@|$SHA|g" \
  deploy/krew/audit-scan.yaml > "$OUT/audit-scan.yaml"
if grep -q '@[A-Z0-9_]*@' "$OUT/audit-scan.yaml"; then echo "release: a placeholder is left in audit-scan.yaml" >&2; exit 1; fi
echo "$OUT/$ARCHIVE"
echo "$OUT/$TGZ"
echo "$OUT/SHA256SUMS"
echo "$OUT/audit-scan.yaml"
