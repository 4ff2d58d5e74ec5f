#!/usr/bin/env bash
# Installs, upgrades or removes the Clabber table kiosk on 64-bit Raspberry Pi OS (Bookworm, Trixie)
# or plain 64-bit Debian.
#
#   sudo deploy/install.sh                 install, or upgrade in place (run it again: it is idempotent;
#                                          changed code is installed even under the same version number)
#   sudo deploy/install.sh --rollback      go back to the previous version's environment
#   sudo deploy/install.sh --uninstall     remove the program; the games and the config stay
#   sudo deploy/install.sh --purge         remove the games and the config too, and undo the rest (users,
#                                          fstab line, consoleblank=0, the login prompt on tty1)
#   deploy/install.sh --root DIR           install into a directory tree (for testing; no apt, no services started)
#
# Options: --parts kiosk|league|kiosk,league: what this machine runs (the kiosk by default; an upgrade
#          keeps what was installed): the kiosk's libraries and services, the league server's, or both,
#          --rotation 0|90|180|270 and --size WxH (first install only: written to the config),
#          --no-apt (skip apt-get), --apt-only (only the apt step, e.g. in an image build), --usb (mount a USB stick labelled CLABBER for the nightly backups).
set -euo pipefail

ROOT=/
ACTION=install
NO_APT=0
USB=0
ROTATION=""
SIZE=""
PARTS=""
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
    --apt-only) ACTION=apt ;;
    --usb) USB=1 ;;
    --rotation) [ $# -ge 2 ] || die "--rotation needs 0, 90, 180 or 270"; ROTATION=$2; shift ;;
    --size) [ $# -ge 2 ] || die "--size needs WxH, e.g. 800x480"; SIZE=$2; shift ;;
    --parts) [ $# -ge 2 ] || die "--parts needs kiosk, league or kiosk,league"; PARTS=$2; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
  shift
done
case "$PARTS" in ""|kiosk|league|kiosk,league) ;; league,kiosk) PARTS=kiosk,league ;;
  *) die "--parts: '$PARTS' is not kiosk, league or kiosk,league" ;; esac
case "$ROTATION" in ""|0|90|180|270) ;; *) die "--rotation: $ROTATION is not 0, 90, 180 or 270" ;; esac
WIDTH=""
HEIGHT=""
if [ -n "$SIZE" ]; then
  [[ "$SIZE" =~ ^([0-9]{1,5})x([0-9]{1,5})$ ]] || die "--size: '$SIZE' is not WxH in pixels, e.g. 800x480"
  WIDTH=$((10#${BASH_REMATCH[1]}))
  HEIGHT=$((10#${BASH_REMATCH[2]}))
fi

if [ "$ROOT" != / ]; then
  [ -d "$ROOT" ] || die "--root $ROOT: no such directory (make it first; the installer fills it like a Pi's /)"
  ROOT=$(cd "$ROOT" && pwd)
fi
ROOT=${ROOT%/}
LIVE=0
if [ -z "$ROOT" ]; then LIVE=1; fi  # installing onto this machine, not into a tree
[ "$LIVE" = 0 ] || [ "$(id -u)" = 0 ] || die "run it as root: sudo $0"

OPT=$ROOT/opt/clabber
ETC=$ROOT/etc/clabber
UNITS=$ROOT/etc/systemd/system
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$SRC/pyproject.toml")
[ -n "$VERSION" ] || die "cannot read the version from $SRC/pyproject.toml"
# What install did that is not its own files, so that --purge can undo it (kept until then).
UNDO=$ETC/.installer-changes
# libgl1: Kivy's wheel links libGL.so.1 and SDL opens it; no package here depends on it.
# What this machine runs: as asked, else as installed before, else the kiosk.
if [ -z "$PARTS" ]; then PARTS=$(cat "$OPT/parts" 2>/dev/null || echo kiosk); fi
has() { case ",$PARTS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
APT_PACKAGES=(python3 python3-venv sqlite3)
if has kiosk; then APT_PACKAGES+=(libegl1 libgl1 libgl1-mesa-dri libgles2 libmtdev1 fonts-dejavu-core); fi
# Only Raspberry Pi OS has these; elsewhere (plain Debian) the installer goes on without them.
APT_OPTIONAL=()
if has kiosk; then APT_OPTIONAL+=(python3-lgpio); fi

systemctl_() {
  if [ "$LIVE" = 1 ]; then systemctl "$@"; else systemctl --root="$ROOT" "$@"; fi
}

install_packages() {
  if [ "$NO_APT" = 1 ] || [ "$LIVE" = 0 ]; then
    say "skipping apt (${APT_PACKAGES[*]})"
    return
  fi
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  local packages=("${APT_PACKAGES[@]}") pkg
  for pkg in "${APT_OPTIONAL[@]}"; do
    if apt-cache policy "$pkg" 2>/dev/null | grep -q '^ *Candidate: [^(]'; then
      packages+=("$pkg")
    else
      say "$pkg is not in this system's package lists (only Raspberry Pi OS has it): going on without it"
    fi
  done
  say "installing packages: ${packages[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}"
}

install_users() {
  # systemd-sysusers makes the gpio group where the system has none (plain Debian): --purge takes it away.
  grep -qs "^gpio:" "$ROOT/etc/group" || remember "group gpio"
  install -D -m 0644 "$SRC/deploy/sysusers.conf" "$ROOT/usr/lib/sysusers.d/clabber.conf"
  if [ "$LIVE" = 1 ]; then systemd-sysusers clabber.conf; else systemd-sysusers --root="$ROOT" clabber.conf; fi
}

check_size() {
  # The kiosk's own bounds (kiosk/config.py), so the installer never writes a size it refuses.
  [ -n "$SIZE" ] || return 0
  local why
  if ! why=$(python3 -I - "$SRC" "$WIDTH" "$HEIGHT" 2>&1 <<'EOF'
import sys

sys.path.insert(0, sys.argv[1])
from kiosk.config import KEYS

for key, value in (("width", sys.argv[2]), ("height", sys.argv[3])):
    try:
        KEYS[key][1](int(value))
    except ValueError as e:
        sys.exit(f"{key} {value} {e}")
EOF
  ); then
    die "--size: $SIZE: ${why##*$'\n'}"
  fi
}

lock_entry() {
  # One package's lines (the pin and its --hash lines) from a lock file.
  awk -v name="$1" 'tolower($0) ~ "^" name "==" { on = 1 } on { print } on && !/\\$/ { exit }' "$2"
}

source_hash() {
  # The content that makes up an install: the code, the project's metadata and the locks. Two
  # checkouts with the same hash install the same thing, whatever their version number says.
  (cd "$SRC" && find engine shared kiosk league -type f ! -name '*.pyc' ! -path '*/__pycache__/*' -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum
   sha256sum pyproject.toml README.md requirements.lock deploy/lgpio.lock deploy/*.packages
   echo "$PARTS") | sha256sum | cut -c1-12
}

parts_lock() {
  # The lock's entries of the packages the chosen parts install (deploy/parts.py lists them).
  local part name
  for part in ${PARTS//,/ }; do grep -v '^#' "$SRC/deploy/$part.packages"; done | sort -u |
    while IFS= read -r name; do
      [ -n "$(lock_entry "$name" "$SRC/requirements.lock")" ] || die "$name (deploy/*.packages) is not in requirements.lock"
      lock_entry "$name" "$SRC/requirements.lock"
    done
}

pip_() { "$@" --disable-pip-version-check --no-input; }

install_lgpio() {
  # Raspberry Pi OS's python3-lgpio (system site packages) is used when there; plain Debian has
  # none: take PyPI's wheel when there is one for this Python, else the kiosk runs without GPIO.
  local venv=$1
  if "$venv/bin/python" -c 'import lgpio' 2>/dev/null; then
    say "GPIO: lgpio from the system"
  elif pip_ "$venv/bin/python" -m pip install --require-hashes --only-binary=:all: --no-deps \
         -r "$SRC/deploy/lgpio.lock" >>"$venv/install.log" 2>&1 &&
       "$venv/bin/python" -c 'import lgpio' 2>>"$venv/install.log"; then
    say "GPIO: no python3-lgpio on this system; lgpio $(lock_entry lgpio "$SRC/deploy/lgpio.lock" | head -n 1 |
      sed 's/^lgpio==\([^ ]*\).*/\1/') from PyPI instead"
  else
    say "GPIO unavailable: no python3-lgpio on this system and no lgpio wheel on PyPI for" \
        "$("$venv/bin/python" -c 'import sys; print("Python %d.%d" % sys.version_info[:2])'):" \
        "the kiosk runs without the dealer buttons and seat lights (a Pi 4 may still reach its pins" \
        "another way; 'journalctl -u clabber-kiosk' says which). Install python3-lgpio to have them."
  fi
}

install_venv() {
  local hash
  hash=$(source_hash)
  local name=venv-$VERSION-$hash
  local venv=$OPT/$name
  local stamp=$venv/.clabber-installed
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
    say "version $VERSION already installed (content $hash)"
  else
    if compgen -G "$OPT/venv-$VERSION-*" >/dev/null; then
      say "version $VERSION with changed content ($hash): creating $venv (the previous one is kept for --rollback)"
    else
      say "creating $venv (the previous one is kept for --rollback)"
    fi
    rm -rf "$venv"
    install -d -m 0755 "$OPT"
    # System site packages: the GPIO library for the Pi 5 (python3-lgpio) comes from Debian.
    python3 -m venv --system-site-packages "$venv"
    local log=$venv/install.log build
    build=$(mktemp -d)
    # The package is built from a copy of exactly what source_hash hashed (no stale build/ folder).
    (cd "$SRC" && find engine shared kiosk league -type f ! -name '*.pyc' ! -path '*/__pycache__/*' -print0 |
      tar --null -T - -cf - pyproject.toml README.md) | tar -C "$build" -xf - && mkdir -p "$build/wheel"
    parts_lock > "$build/parts.lock" || die "cannot take the packages of $PARTS from requirements.lock"
    # Every file pip fetches must match a hash in the lock: pip itself first, then the
    # dependencies, then this package (built offline with the locked setuptools) without deps.
    if ! { pip_ "$venv/bin/python" -m pip install --require-hashes --no-deps \
             -r <(lock_entry pip "$SRC/requirements.lock") &&
           pip_ "$venv/bin/python" -m pip install --require-hashes --only-binary=:all: -r "$build/parts.lock" &&
           pip_ "$venv/bin/python" -m pip wheel --no-deps --no-build-isolation --no-index -w "$build/wheel" "$build" &&
           pip_ "$venv/bin/python" -m pip install --no-deps --no-index "$build"/wheel/*.whl &&
           "$venv/bin/clabber" --version
         } >"$log" 2>&1; then
      rm -rf "$build"
      tail -n 20 "$log" >&2
      die "installing the Python packages failed (log: $log); the running version is untouched"
    fi
    rm -rf "$build"
    if has kiosk; then install_lgpio "$venv"; fi
    echo "$hash" > "$stamp"
  fi
  install -m 0644 "$SRC/README.md" "$OPT/README.md"
  local current=""
  if [ -L "$OPT/venv" ]; then current=$(readlink "$OPT/venv"); fi
  if [ "$current" != "$name" ]; then
    if [ -n "$current" ]; then ln -sfn "$current" "$OPT/venv.previous"; fi
    ln -sfn "$name" "$OPT/venv"
  fi
  # Keep this install and the one before it; older environments go.
  local keep_prev=""
  if [ -L "$OPT/venv.previous" ]; then keep_prev=$(readlink "$OPT/venv.previous"); fi
  for old in "$OPT"/venv-*; do
    [ -d "$old" ] || continue
    case "$(basename "$old")" in "$name"|"$keep_prev") ;; *) rm -rf "$old" ;; esac
  done
}

remember() {
  # One line per change made outside the installer's own files, for --purge.
  install -d -m 0755 "$ETC"
  grep -qsxF "$1" "$UNDO" || echo "$1" >> "$UNDO"
}

install_config() {
  install -d -m 0755 "$ETC"
  if [ -f "$ETC/config.toml" ]; then
    say "keeping $ETC/config.toml"
    return
  fi
  # The template with the chosen lines uncommented, line by line (the values were checked above).
  local line tmp=$ETC/.config.toml.new
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      "# rotation = 0 "*) [ -z "$ROTATION" ] || line="rotation = $ROTATION" ;;
      "# width = 800") [ -z "$WIDTH" ] || line="width = $WIDTH" ;;
      "# height = 480") [ -z "$HEIGHT" ] || line="height = $HEIGHT" ;;
    esac
    printf '%s\n' "$line"
  done < "$SRC/deploy/config.toml" > "$tmp"
  chmod 0644 "$tmp"
  mv "$tmp" "$ETC/config.toml"
}

KIOSK_SERVICES=(clabber-kiosk.service clabber-web.service clabber-sync.service clabber-backup.timer clabber-update.service clabber-update-check.service)
LEAGUE_SERVICES=(clabber-league.service)

install_units() {
  # Each part's units (the league's: clabber-league*), the others' taken away (a part no longer installed).
  install -d -m 0755 "$UNITS"
  local unit name enabled=()
  # A part no longer installed is disabled before its units go: no link is left pointing at nothing.
  if ! has league; then systemctl_ disable "${LEAGUE_SERVICES[@]}" >/dev/null 2>&1 || true; fi
  if ! has kiosk; then systemctl_ disable "${KIOSK_SERVICES[@]}" >/dev/null 2>&1 || true; fi
  for unit in "$SRC"/systemd/*.service "$SRC"/systemd/*.timer; do
    name=$(basename "$unit")
    case "$name" in clabber-league*) has league ;; *) has kiosk ;; esac || { rm -f "$UNITS/$name"; continue; }
    install -m 0644 "$unit" "$UNITS/$name"
  done
  if has kiosk; then enabled+=("${KIOSK_SERVICES[@]}"); fi
  if has league; then enabled+=("${LEAGUE_SERVICES[@]}"); fi
  systemctl_ enable "${enabled[@]}" >/dev/null 2>&1
  say "services enabled: ${enabled[*]}"
}

printer_access() {
  # The kiosk's service may reach the printer set in [printer] of the config and nothing more: a
  # serial port or a network printer through a drop-in written from it (USB printers need none:
  # the unit allows them, see systemd/clabber-kiosk.service). Written again at every install, so
  # run the installer again after changing [printer].
  local folder=$UNITS/clabber-kiosk.service.d text
  if ! text=$("$OPT/venv/bin/python" -I - "$ETC/config.toml" 2>&1 <<'EOF'
import sys
import tomllib

from kiosk.printer_config import printer_config, service_access

try:
    with open(sys.argv[1], "rb") as f:
        table = tomllib.load(f).get("printer", {})
    print(service_access(printer_config(table)), end="")
except (OSError, ValueError) as e:  # the config's own errors are ValueErrors
    sys.exit(f"{sys.argv[1]}: {e}")
EOF
  ); then
    say "printer: ${text##*$'\n'}; the kiosk's service is let reach no serial or network printer until that is fixed"
    text=""
  fi
  if [ -n "$text" ]; then
    install -d -m 0755 "$folder"
    printf '%s\n' "$text" > "$folder/printer.conf.new"
    chmod 0644 "$folder/printer.conf.new"
    mv "$folder/printer.conf.new" "$folder/printer.conf"
    say "the kiosk's service may reach the printer: $folder/printer.conf"
  elif [ -f "$folder/printer.conf" ]; then
    rm -f "$folder/printer.conf"
    rmdir "$folder" 2>/dev/null || true
    say "removed $folder/printer.conf (no serial or network printer in the config)"
  fi
}

cmdline_file() {
  local candidate
  for candidate in "$ROOT/boot/firmware/cmdline.txt" "$ROOT/boot/cmdline.txt"; do
    if [ -f "$candidate" ]; then echo "$candidate"; return; fi
  done
}

console_setup() {
  # The screen must never blank, and the kiosk's console shows no login prompt.
  local cmdline
  cmdline=$(cmdline_file)
  if [ -z "$cmdline" ]; then
    say "no cmdline.txt found: add consoleblank=0 to the kernel command line by hand"
  elif ! grep -qw 'consoleblank=0' "$cmdline"; then
    sed -i '1 s/$/ consoleblank=0/' "$cmdline"
    remember "consoleblank=0 ${cmdline#"$ROOT"}"
    say "added consoleblank=0 to $cmdline (takes effect at the next boot)"
  fi
  if [ "$(systemctl_ is-enabled getty@tty1.service 2>/dev/null)" = enabled ]; then
    systemctl_ disable getty@tty1.service >/dev/null 2>&1 || true
    remember "getty@tty1"
  fi
  # Touch input: the kiosk reads the touchscreen once, through SDL (see the README); rotation is
  # Kivy's (rotation in config.toml), since the kernel's rotation does not rotate an SDL app.
}

usb_setup() {
  # The stick's line (deploy/clabber-usb.fstab, the card's too), replacing any earlier one.
  [ "$USB" = 1 ] || return 0
  install -d -m 0755 "$ROOT/mnt/clabber-usb"
  local line
  line=$(grep -v '^#' "$SRC/deploy/clabber-usb.fstab")
  if [ "$(grep -s " /mnt/clabber-usb " "$ROOT/etc/fstab")" != "$line" ]; then
    { grep -sv " /mnt/clabber-usb " "$ROOT/etc/fstab" || true; echo "$line"; } > "$ROOT/etc/fstab.clabber-new"
    cat "$ROOT/etc/fstab.clabber-new" > "$ROOT/etc/fstab"  # in place: keeps the file's owner and mode
    rm -f "$ROOT/etc/fstab.clabber-new"
    say "a USB stick labelled CLABBER will be used for the nightly backups"
  fi
}

booted() {
  # systemd runs this machine (not a chroot or an image build, where units start at the next boot).
  [ "$LIVE" = 1 ] && [ -d /run/systemd/system ]
}

start_services() {
  [ "$LIVE" = 1 ] || return 0
  if ! booted; then
    say "systemd is not running here (a chroot or an image build): the services start at the next boot"
    return 0
  fi
  systemctl daemon-reload
  if has kiosk; then
    systemctl restart clabber-kiosk.service clabber-web.service clabber-sync.service
    systemctl start clabber-backup.timer
  fi
  if has league; then systemctl restart clabber-league.service; fi
}

undo_system_changes() {
  # What install changed outside its own files, back as it was.
  local cmdline line
  if grep -qs " /mnt/clabber-usb " "$ROOT/etc/fstab"; then
    grep -v " /mnt/clabber-usb " "$ROOT/etc/fstab" > "$ROOT/etc/fstab.clabber-new" || true
    cat "$ROOT/etc/fstab.clabber-new" > "$ROOT/etc/fstab"  # in place: keeps the file's owner and mode
    rm -f "$ROOT/etc/fstab.clabber-new"
    say "removed the USB stick's line from /etc/fstab"
  fi
  rmdir "$ROOT/mnt/clabber-usb" 2>/dev/null || true
  while IFS= read -r line; do
    case "$line" in
      "consoleblank=0 "*)
        cmdline=$ROOT${line#consoleblank=0 }
        if [ -f "$cmdline" ]; then
          sed -i '1 s/ consoleblank=0\( \|$\)/\1/' "$cmdline"
          say "removed consoleblank=0 from $cmdline (at the next boot)"
        fi
        ;;
      getty@tty1)
        systemctl_ enable getty@tty1.service >/dev/null 2>&1 || true
        say "the login prompt is back on tty1"
        ;;
    esac
  done < <(cat "$UNDO" 2>/dev/null)
  local root_opt=()
  [ "$LIVE" = 1 ] || root_opt=(--root "$ROOT")
  for user in clabber-web clabber; do
    if grep -qs "^$user:" "$ROOT/etc/passwd"; then userdel "${root_opt[@]}" "$user" >/dev/null 2>&1 || true; fi
  done
  if grep -qsxF "group gpio" "$UNDO" && grep -qs "^gpio:" "$ROOT/etc/group"; then
    groupdel "${root_opt[@]}" gpio >/dev/null 2>&1 || true
    say "removed the gpio group the installer made"
  fi
  for group in clabber-web clabber; do
    if grep -qs "^$group:" "$ROOT/etc/group"; then groupdel "${root_opt[@]}" "$group" >/dev/null 2>&1 || true; fi
  done
  if grep -qs "^clabber\(-web\)\?:" "$ROOT/etc/passwd" "$ROOT/etc/group"; then
    say "could not remove the users clabber and clabber-web: remove them with userdel"
  else
    say "removed the users clabber and clabber-web"
  fi
}

case "$ACTION" in
  apt)
    [ "$NO_APT" = 0 ] || die "--apt-only and --no-apt together do nothing"
    [ "$LIVE" = 1 ] || die "--apt-only installs onto this machine: it cannot go with --root"
    install_packages
    ;;
  install)
    install_packages
    check_size
    if [ ! -d "$ROOT/etc" ]; then
      install -d -m 0755 "$ROOT/etc"
      say "$ROOT has no etc/: created it (users, units and the config go there)"
    fi
    if has kiosk; then install_users; fi
    install_venv
    echo "$PARTS" > "$OPT/parts"
    if has kiosk; then
      install_config
    fi
    install_units
    if has kiosk; then
      printer_access
      console_setup
      usb_setup
    fi
    start_services
    say "installed version $VERSION ($PARTS) into ${ROOT:-/}"
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
    for unit in "${KIOSK_SERVICES[@]}" "${LEAGUE_SERVICES[@]}"; do
      if booted; then systemctl disable --now "$unit" >/dev/null 2>&1 || true
      else systemctl_ disable "$unit" >/dev/null 2>&1 || true; fi
    done
    rm -f "$UNITS"/clabber-*.service "$UNITS"/clabber-*.timer "$UNITS/clabber-kiosk.service.d/printer.conf"
    # Any link to a unit of ours left in a .wants folder (by an installer before this one, or by hand).
    rm -f "$UNITS"/*.wants/clabber-*
    rmdir "$UNITS/clabber-kiosk.service.d" 2>/dev/null || true  # unless the owner keeps drop-ins of their own there
    if booted; then systemctl daemon-reload || true; fi
    rm -rf "$OPT"
    if [ "$ACTION" = purge ]; then
      undo_system_changes
      rm -rf "$ETC" "$ROOT/var/lib/clabber" "$ROOT/usr/lib/sysusers.d/clabber.conf"
      say "removed the program, the games and the config"
    else
      say "removed the program; the games (/var/lib/clabber) and the config (/etc/clabber) are kept"
    fi
    ;;
esac
