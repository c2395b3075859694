#!/usr/bin/env bash
# tools/make-deb.sh OUTDIR: builds OUTDIR/bracelet_VERSION_ARCH.deb from the release build of this
# tree with Debian's own tools (debhelper's dh, debian/rules). VERSION is debian/changelog's, ARCH is
# this machine's (dpkg --print-architecture): the package is built natively, since its man pages and
# completions come from running the built binary. Needs swift (6.x) on PATH, debhelper, dpkg-dev and
# (installed here when missing, as root; Rules-Requires-Root: no, so no fakeroot), and the -dev packages of tools/install-system-packages.sh.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tools/make-deb.sh OUTDIR" >&2; exit 2; }
cd "$(dirname "$0")/.."
mkdir -p "$1"
out=$(cd "$1" && pwd)
command -v swift >/dev/null || { echo "make-deb: swift is not on PATH: install Swift 6 from swift.org (e.g. into /opt/swift) and add its usr/bin to PATH" >&2; exit 1; }
need=()
for pkg in debhelper dpkg-dev; do dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg"); done
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || { echo "make-deb: install first: sudo apt-get install ${need[*]}" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
version=$(dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
# Build dependencies are checked by dpkg-checkbuilddeps (the Swift toolchain is not a Debian package).
dpkg-checkbuilddeps
# Binary package only (no source package); debian/rules writes the .deb into BRACELET_DEB_OUTDIR.
BRACELET_DEB_OUTDIR="$out" debian/rules binary >"$out/make-deb.log" 2>&1 ||
  { tail -40 "$out/make-deb.log" >&2; echo "make-deb: debian/rules binary failed; the whole log is $out/make-deb.log" >&2; exit 1; }
debian/rules clean >/dev/null 2>&1 || true
deb="$out/bracelet_${version}_${arch}.deb"
[ -f "$deb" ] || { echo "make-deb: $deb was not written; see $out/make-deb.log" >&2; exit 1; }
echo "$deb"
