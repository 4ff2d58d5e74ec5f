#!/usr/bin/env bash
# Installs, upgrades or removes the Clabber table kiosk on 64-bit Raspberry Pi OS (Bookworm, Trixie).
#
#   sudo deploy/install.sh                 install, or upgrade in place (run it again: it is idempotent)
#   sudo deploy/install.sh --rollback      go back to the previous version's environment
#   sudo deploy/install.sh --uninstall     remove the program; the games and the config stay
#   sudo deploy/install.sh --purge         remove the games and the config too
#   deploy/install.sh --root DIR           install into a directory tree (for testing; no apt, no services started)
#
# Options: --rotation 0|90|180|270 and --size WxH (first install only: written to the config),
#          --no-apt (skip apt-get), --usb (mount a USB stick labelled CLABBER for the nightly backups).
set -euo pipefail

ROOT=/
ACTION=install
NO_APT=0
USB=0
ROTATION=""
SIZE=""
SRC=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "install.sh: $*" >&2; exit 2; }
say() { echo "install.sh: $*"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --root) [ $# -ge 2 ] || die "--root needs a directory"; ROOT=$2; shift ;;
    --uninstall) ACTION=uninstall ;;
    --purge) ACTION=purge ;;
    --rollback) ACTION=rollback ;;
    --no-apt) NO_APT=1 ;;
    --usb) USB=1 ;;
    --rotation) [ $# -ge 2 ] || die "--rotation needs 0, 90, 180 or 270"; ROTATION=$2; shift ;;
    --size) [ $# -ge 2 ] || die "--size needs WxH, e.g. 800x480"; SIZE=$2; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
  shift
done
case "$ROTATION" in ""|0|90|180|270) ;; *) die "--rotation: $ROTATION is not 0, 90, 180 or 270" ;; esac
case "$SIZE" in ""|[0-9]*x[0-9]*) ;; *) die "--size: $SIZE is not WxH" ;; esac

ROOT=${ROOT%/}
LIVE=0
if [ -z "$ROOT" ]; then LIVE=1; fi  # installing onto this machine, not into a tree
[ "$LIVE" = 0 ] || [ "$(id -u)" = 0 ] || die "run it as root: sudo $0"

OPT=$ROOT/opt/clabber
ETC=$ROOT/etc/clabber
UNITS=$ROOT/etc/systemd/system
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$SRC/pyproject.toml")
[ -n "$VERSION" ] || die "cannot read the version from $SRC/pyproject.toml"
APT_PACKAGES=(python3 python3-venv python3-lgpio libegl1 libgl1-mesa-dri libgles2 libmtdev1 fonts-dejavu-core sqlite3)

systemctl_() {
  if [ "$LIVE" = 1 ]; then systemctl "$@"; else systemctl --root="$ROOT" "$@"; fi
}

install_packages() {
  if [ "$NO_APT" = 1 ] || [ "$LIVE" = 0 ]; then
    say "skipping apt (${APT_PACKAGES[*]})"
    return
  fi
  say "installing packages: ${APT_PACKAGES[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${APT_PACKAGES[@]}"
}

install_users() {
  install -D -m 0644 "$SRC/deploy/sysusers.conf" "$ROOT/usr/lib/sysusers.d/clabber.conf"
  if [ "$LIVE" = 1 ]; then systemd-sysusers clabber.conf; else systemd-sysusers --root="$ROOT" clabber.conf; fi
}

install_venv() {
  local venv=$OPT/venv-$VERSION
  local stamp=$venv/.clabber-installed
  if [ -f "$stamp" ] && cmp -s "$stamp" <(cat "$SRC/requirements.lock" "$SRC/pyproject.toml"); then
    say "version $VERSION already installed"
  else
    say "creating $venv (the previous one is kept for --rollback)"
    rm -rf "$venv"
    # System site packages: the GPIO library for the Pi 5 (python3-lgpio) comes from Debian.
    python3 -m venv --system-site-packages "$venv"
    local log=$venv/install.log
    if ! { "$venv/bin/python" -m pip install --disable-pip-version-check --upgrade pip &&
           "$venv/bin/python" -m pip install --disable-pip-version-check -c "$SRC/requirements.lock" "$SRC"
         } >"$log" 2>&1; then
      tail -n 20 "$log" >&2
      die "installing the Python packages failed (log: $log); the running version is untouched"
    fi
    cat "$SRC/requirements.lock" "$SRC/pyproject.toml" > "$stamp"
  fi
  install -m 0644 "$SRC/README.md" "$OPT/README.md"
  local current=""
  if [ -L "$OPT/venv" ]; then current=$(readlink "$OPT/venv"); fi
  if [ "$current" != "venv-$VERSION" ]; then
    if [ -n "$current" ]; then ln -sfn "$current" "$OPT/venv.previous"; fi
    ln -sfn "venv-$VERSION" "$OPT/venv"
  fi
  # Keep this version and the one before it; older environments go.
  local keep_prev=""
  if [ -L "$OPT/venv.previous" ]; then keep_prev=$(readlink "$OPT/venv.previous"); fi
  for old in "$OPT"/venv-*; do
    [ -d "$old" ] || continue
    case "$(basename "$old")" in "venv-$VERSION"|"$keep_prev") ;; *) rm -rf "$old" ;; esac
  done
}

install_config() {
  install -d -m 0755 "$ETC"
  if [ -f "$ETC/config.toml" ]; then
    say "keeping $ETC/config.toml"
    return
  fi
  install -m 0644 "$SRC/deploy/config.toml" "$ETC/config.toml"
  if [ -n "$ROTATION" ]; then sed -i "s/^# rotation = 0 .*/rotation = $ROTATION/" "$ETC/config.toml"; fi
  if [ -n "$SIZE" ]; then
    sed -i "s/^# width = 800/width = ${SIZE%x*}/; s/^# height = 480/height = ${SIZE#*x}/" "$ETC/config.toml"
  fi
}

install_units() {
  install -d -m 0755 "$UNITS"
  for unit in "$SRC"/systemd/*.service "$SRC"/systemd/*.timer; do
    install -m 0644 "$unit" "$UNITS/$(basename "$unit")"
  done
  systemctl_ enable clabber-kiosk.service clabber-web.service clabber-backup.timer >/dev/null 2>&1
  say "services enabled: clabber-kiosk, clabber-web, clabber-backup.timer"
}

console_setup() {
  # The screen must never blank, and the kiosk's console shows no login prompt.
  local cmdline=""
  for candidate in "$ROOT/boot/firmware/cmdline.txt" "$ROOT/boot/cmdline.txt"; do
    if [ -f "$candidate" ]; then cmdline=$candidate; break; fi
  done
  if [ -z "$cmdline" ]; then
    say "no cmdline.txt found: add consoleblank=0 to the kernel command line by hand"
  elif ! grep -qw 'consoleblank=0' "$cmdline"; then
    sed -i '1 s/$/ consoleblank=0/' "$cmdline"
    say "added consoleblank=0 to $cmdline (takes effect at the next boot)"
  fi
  systemctl_ disable getty@tty1.service >/dev/null 2>&1 || true
  # Touch input: the kiosk reads the touchscreen once, through SDL (see the README); rotation is
  # Kivy's (rotation in config.toml), since the kernel's rotation does not rotate an SDL app.
}

usb_setup() {
  [ "$USB" = 1 ] || return 0
  install -d -m 0755 "$ROOT/mnt/clabber-usb"
  local line="LABEL=CLABBER /mnt/clabber-usb vfat noauto,nofail,x-systemd.automount,uid=clabber,gid=clabber,umask=0027 0 0"
  if ! grep -qs "/mnt/clabber-usb" "$ROOT/etc/fstab"; then
    echo "$line" >> "$ROOT/etc/fstab"
    say "a USB stick labelled CLABBER will be used for the nightly backups"
  fi
}

start_services() {
  [ "$LIVE" = 1 ] || return 0
  systemctl daemon-reload
  systemctl restart clabber-kiosk.service clabber-web.service
  systemctl start clabber-backup.timer
}

case "$ACTION" in
  install)
    install_packages
    install_users
    install_venv
    install_config
    install_units
    console_setup
    usb_setup
    start_services
    say "installed version $VERSION into ${ROOT:-/}"
    ;;
  rollback)
    [ -L "$OPT/venv.previous" ] || die "no previous version to go back to"
    previous=$(readlink "$OPT/venv.previous")
    ln -sfn "$(readlink "$OPT/venv")" "$OPT/venv.previous"
    ln -sfn "$previous" "$OPT/venv"
    start_services
    say "now running $previous"
    ;;
  uninstall|purge)
    for unit in clabber-kiosk.service clabber-web.service clabber-backup.timer; do
      if [ "$LIVE" = 1 ]; then systemctl disable --now "$unit" >/dev/null 2>&1 || true
      else systemctl_ disable "$unit" >/dev/null 2>&1 || true; fi
    done
    rm -f "$UNITS"/clabber-*.service "$UNITS"/clabber-*.timer
    rm -rf "$OPT"
    if [ "$ACTION" = purge ]; then
      rm -rf "$ETC" "$ROOT/var/lib/clabber" "$ROOT/usr/lib/sysusers.d/clabber.conf"
      say "removed the program, the games and the config"
    else
      say "removed the program; the games (/var/lib/clabber) and the config (/etc/clabber) are kept"
    fi
    ;;
esac
