#!/usr/bin/env bash
# Proof on arm64: installs the kiosk into an emulated Debian bookworm arm64 root and draws its
# first frame there, then runs a smoke set (deploy/arm64-smoke.sh) inside it.
#
#   sudo deploy/test-arm64.sh        (or ./run test-arm64)
#
# As root, on an x86-64 Debian machine: installs qemu-user-static and debootstrap, mounts
# binfmt_misc if needed, builds the base root once with debootstrap and keeps it in
# $CLABBER_ARM64_CACHE (default /var/cache/clabber-arm64). Every run starts from a fresh copy of
# that base: the installer's own apt step (install.sh --apt-only), then install.sh --no-apt, as
# on a Pi. Downloaded .debs and wheels are kept in the cache between runs, and so is the root after
# the apt step, for as long as install.sh does not change. Needs only the Debian
# mirror and PyPI. Figures and what only a real Pi can confirm: docs/arm64.md.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CLABBER_ARM64_CACHE:-/var/cache/clabber-arm64}
SUITE=bookworm
MIRROR=${CLABBER_ARM64_MIRROR:-http://deb.debian.org/debian}
BASE=$CACHE/$SUITE-arm64
WORK=$CACHE/run
HOST_PY=${CLABBER_HOST_PYTHON:-$SRC/.venv/bin/python}  # decodes the QR written inside the root

die() { echo "test-arm64: $*" >&2; exit 2; }
say() { echo "test-arm64: $*"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[ "$(id -u)" = 0 ] || die "run it as root (debootstrap and chroot need it): sudo $0"
[ "$(uname -m)" = x86_64 ] || say "this host is $(uname -m), not x86_64: untested here"
T0=$(now)

# ---- the host's tools ------------------------------------------------------------------------
if ! command -v debootstrap >/dev/null || [ ! -x /usr/bin/qemu-aarch64-static ]; then
  say "installing qemu-user-static and debootstrap on the host"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-user-static debootstrap >/dev/null
fi
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || die "cannot mount binfmt_misc"
fi
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  # Debian's entry (flag F: the interpreter is opened now, so it need not exist inside the root).
  conf=$(find /usr/lib/binfmt.d -name 'qemu-aarch64*.conf' 2>/dev/null | head -n 1)
  [ -n "$conf" ] || die "qemu-user-static installed no binfmt entry for aarch64 (/usr/lib/binfmt.d)"
  grep -v '^#' "$conf" | head -n 1 > /proc/sys/fs/binfmt_misc/register || die "cannot register $conf"
fi
mkdir -p "$CACHE/pip" "$CACHE/debs"

# ---- the base root, built once ---------------------------------------------------------------
mounted() { awk -v w="$WORK" '$2 == w || index($2, w "/") == 1 { found = 1 } END { exit !found }' /proc/mounts; }
cleanup() {
  for m in dev/pts dev proc sys; do
    if mountpoint -q "$WORK/$m" 2>/dev/null; then umount -l "$WORK/$m" || true; fi
  done
}
trap cleanup EXIT

BUILD_S=cached
if [ ! -f "$BASE/.complete" ]; then
  say "building the Debian $SUITE arm64 base root with debootstrap (once; kept in $BASE)"
  t=$(now)
  rm -rf --one-file-system "$BASE.tmp"
  # minbase plus systemd: what every Debian and Raspberry Pi OS install has (the installer needs
  # systemctl and systemd-sysusers); the installer's apt step adds the rest.
  if ! debootstrap --arch=arm64 --variant=minbase --include=systemd,systemd-sysv "$SUITE" "$BASE.tmp" "$MIRROR" \
       > "$CACHE/debootstrap.log" 2>&1; then
    tail -n 20 "$CACHE/debootstrap.log" >&2
    die "debootstrap failed (log: $CACHE/debootstrap.log)"
  fi
  rm -rf "$BASE"
  mv "$BASE.tmp" "$BASE"
  touch "$BASE/.complete"
  BUILD_S=$(since "$t")
  say "base root built in ${BUILD_S}s"
fi

# ---- this run's root: a fresh copy ----------------------------------------------------------
# Of the base root, or of the root that the same installer's apt step already ran in (kept per
# hash of install.sh: emulated dpkg is the slow part, and it only repeats when the script changes).
APT_KEY=$(sha256sum < "$SRC/deploy/install.sh" | cut -c1-12)
WITH_PACKAGES=$CACHE/with-packages-$APT_KEY

mount_root() {
  mount --bind /dev "$WORK/dev"
  mount --bind /dev/pts "$WORK/dev/pts"
  mount -t proc proc "$WORK/proc"
  mount -t sysfs sysfs "$WORK/sys"
}

fresh_root() {
  if mounted; then die "something is still mounted under $WORK: unmount it first"; fi
  rm -rf --one-file-system "$WORK"
  cp -a "$1" "$WORK"
  rm -f "$WORK/.complete"
  cp /etc/resolv.conf "$WORK/etc/resolv.conf"
  # pip inside the root trusts what the host trusts (the host may reach PyPI through its own CA).
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$WORK/etc/ssl/host-ca.crt"
  # No daemon starts inside a chroot.
  printf '#!/bin/sh\nexit 101\n' > "$WORK/usr/sbin/policy-rc.d"
  chmod 0755 "$WORK/usr/sbin/policy-rc.d"
  # The host's apt settings for its mirror (e.g. a snapshot whose Release files are past their date).
  if [ -f /etc/apt/apt.conf.d/99artifact-registry ]; then
    cp /etc/apt/apt.conf.d/99artifact-registry "$WORK/etc/apt/apt.conf.d/"
  fi
  install -d "$WORK/var/cache/apt/archives" "$WORK/root/.cache"
  cp -a "$CACHE/debs/." "$WORK/var/cache/apt/archives/"
  rm -rf "$WORK/root/.cache/pip" "$WORK/root/clabber"
  cp -a "$CACHE/pip" "$WORK/root/.cache/pip"
  # The checkout, as a clone would have it (tracked and new files; not .venv or other ignored ones).
  # shellcheck disable=SC2016  # the inner sh expands it
  git -C "$SRC" ls-files -z --cached --others --exclude-standard |
    (cd "$SRC" && xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
    tar -C "$SRC" --null -T - -cf - | tar -C "$WORK/root" --one-top-level=clabber -xf -
  mount_root
}

if [ -f "$WITH_PACKAGES/.complete" ]; then
  PACKAGES_FROM="the root kept from this install.sh's earlier apt step"
  fresh_root "$WITH_PACKAGES"
else
  PACKAGES_FROM="a fresh copy of the base root"
  fresh_root "$BASE"
fi

in_root() {
  chroot "$WORK" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb PIP_CERT=/etc/ssl/host-ca.crt PIP_DEFAULT_TIMEOUT=180 "$@"
}

ARCH=$(in_root uname -m)
say "inside the root: uname -m = $ARCH"
[ "$ARCH" = aarch64 ] || die "the root runs as $ARCH, not aarch64"

# ---- the installer, as on a Pi ---------------------------------------------------------------
t=$(now)
if ! in_root bash /root/clabber/deploy/install.sh --apt-only > "$CACHE/apt-step.log" 2>&1; then
  tail -n 30 "$CACHE/apt-step.log" >&2
  die "the installer's apt step failed inside the root (log: $CACHE/apt-step.log)"
fi
APT_S=$(since "$t")
cp -a "$WORK/var/cache/apt/archives/." "$CACHE/debs/" 2>/dev/null || true
rm -f "$CACHE/debs/lock"
say "apt step: ${APT_S}s, in $PACKAGES_FROM"
grep '^install.sh:' "$CACHE/apt-step.log" | sed 's/^/  /'
if [ ! -f "$WITH_PACKAGES/.complete" ]; then
  cleanup
  rm -rf --one-file-system "$CACHE"/with-packages-*
  cp -a "$WORK" "$WITH_PACKAGES.tmp"
  rm -rf "$WITH_PACKAGES.tmp/root/clabber" "$WITH_PACKAGES.tmp/root/.cache/pip"
  find "$WITH_PACKAGES.tmp/var/cache/apt/archives" -name '*.deb' -delete
  mv "$WITH_PACKAGES.tmp" "$WITH_PACKAGES"
  touch "$WITH_PACKAGES/.complete"
  mount_root
fi

t=$(now)
if ! in_root bash /root/clabber/deploy/install.sh --no-apt > "$CACHE/install.log" 2>&1; then
  tail -n 30 "$CACHE/install.log" >&2
  die "deploy/install.sh --no-apt failed inside the root (log: $CACHE/install.log)"
fi
INSTALL_S=$(since "$t")
rm -rf "$CACHE/pip" && cp -a "$WORK/root/.cache/pip" "$CACHE/pip"
say "install.sh --no-apt: ${INSTALL_S}s"
sed 's/^/  /' "$CACHE/install.log"

# ---- the kiosk's first frame and the smoke set, inside the root ------------------------------
if ! in_root bash /root/clabber/deploy/arm64-smoke.sh > "$CACHE/smoke.log" 2>&1; then
  cat "$CACHE/smoke.log" >&2
  die "the smoke set failed inside the root (log: $CACHE/smoke.log)"
fi
cat "$CACHE/smoke.log"

# The QR the arm64 kiosk wrote, read back by a decoder (zxing-cpp, the test suite's).
url=$(sed -n 's/^smoke: qr url //p' "$CACHE/smoke.log")
[ -x "$HOST_PY" ] || die "no $HOST_PY to decode the QR with: run ./run setup first (or set CLABBER_HOST_PYTHON)"
decoded=$("$HOST_PY" -c '
import sys, zxingcpp
from PIL import Image
found = zxingcpp.read_barcodes(Image.open(sys.argv[1]))
print(found[0].text if found else "")' "$WORK/tmp/clabber-smoke/qr.png")
if [ -z "$url" ] || [ "$decoded" != "$url" ]; then die "the QR decodes to '$decoded', not '$url'"; fi
say "qr decoded: $decoded"

say "passed: base root ${BUILD_S}$([ "$BUILD_S" = cached ] || echo s), apt step ${APT_S}s (in $PACKAGES_FROM), install ${INSTALL_S}s, whole run $(since "$T0")s"
