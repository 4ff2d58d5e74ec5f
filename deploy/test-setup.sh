#!/usr/bin/env bash
# Once, as root, on a fresh Debian or Raspberry Pi OS machine: what the kiosk and the whole test
# suite need. The packages, and a PostgreSQL for the league's tests on 127.0.0.1:5432 (a database
# "test", trust for loopback TCP: a machine for development and tests, not a league's server) when
# none answers there and CLABBER_TEST_PG does not point elsewhere. CI runs it too (.ci/run);
# ./run kiosk and ./run test run it (through sudo) when something is missing.
#   --kiosk   only what the kiosk needs to run: no test tools, no PostgreSQL
set -euo pipefail
KIOSK_PACKAGES="python3 python3-venv libegl1 libgl1 libgl1-mesa-dri libmtdev1 fonts-dejavu-core"
TEST_PACKAGES="$KIOSK_PACKAGES systemd shellcheck util-linux mount fuse3 chromium systemd-container mmdebstrap rauc rauc-service dbus-daemon e2fsprogs openssl squashfs-tools u-boot-tools mtools"
role="test"
case "${1:-}" in
  --kiosk) role=kiosk ;;
  --list)  # the packages of a role: kiosk or test
    if [ "${2:-test}" = kiosk ]; then echo "$KIOSK_PACKAGES"; else echo "$TEST_PACKAGES"; fi
    exit 0 ;;
  "") ;;
  *) echo "test-setup: usage: deploy/test-setup.sh [--kiosk]" >&2; exit 2 ;;
esac
if [ "$(id -u)" -ne 0 ]; then
  echo "test-setup: run it as root: sudo deploy/test-setup.sh" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if command -v apt-get >/dev/null; then
  apt-get update -qq
  # python3-venv for ./run; Mesa EGL/GL for Kivy's offscreen window (Kivy's wheel links libGL.so.1
  # and no package here depends on it, so libgl1 is named), libmtdev for Kivy's input modules,
  # DejaVu for the suit symbols; systemd-analyze and shellcheck for the deployment checks; unshare
  # and mount for the result server's read-only-mount test; fuse3 (libfuse3) for the power-cut
  # test's filesystem; chromium for the league's pages in a real browser (driven by Playwright, which
  # is told to use it and never downloads one); RAUC, its service's D-Bus policy, a dbus-daemon for
  # its private bus, e2fsprogs and openssl for the updater's tests (throw-away keys, real bundles).
  packages=$KIOSK_PACKAGES
  [ "$role" = test ] && packages=$TEST_PACKAGES
  # shellcheck disable=SC2086  # a list of package names
  apt-get install -y -qq --no-install-recommends $packages >/dev/null
fi
[ "$role" = kiosk ] && exit 0
# PostgreSQL for the league's tests: on 127.0.0.1:5432, trust for loopback TCP, a database "test".
# A machine that already has one answering is left alone; CLABBER_TEST_PG points elsewhere if set.
pg_answers() { (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; }
if [ -z "${CLABBER_TEST_PG:-}" ] && ! pg_answers && command -v apt-get >/dev/null; then
  apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  ver=$(find /etc/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n1)
  # Trust on loopback TCP only, and only for CI's throw-away machine.
  sed -i -E 's/^(host[[:space:]]+all[[:space:]]+all[[:space:]]+(127\.0\.0\.1\/32|::1\/128)[[:space:]]+)[^[:space:]]+/\1trust/' \
    "/etc/postgresql/$ver/main/pg_hba.conf"
  # The package may have started the cluster already: then reload its pg_hba.conf, else start it.
  pg_ctlcluster "$ver" main reload 2>/dev/null || pg_ctlcluster "$ver" main start || service postgresql start
  for _ in $(seq 30); do pg_answers && break; sleep 1; done
  if [ "$(psql -h 127.0.0.1 -U postgres -d postgres -qAtc "SELECT count(*) FROM pg_database WHERE datname = 'test'")" = 0 ]; then
    psql -h 127.0.0.1 -U postgres -d postgres -qc "CREATE DATABASE test"
  fi
fi
