#!/usr/bin/env bash
# Builds the Clabber kiosk's card image for the Raspberry Pi 4 and 5 from Debian's packages: the
# Pi's firmware and Debian's arm64 kernel, the kiosk installed by deploy/install.sh as on a
# hand-made Pi, the card's settings read at every boot (deploy/image/card.py). Writes
# clabber-VERSION-arm64.img.xz, its .sha256 and the list of packages in it (.packages).
#
#   sudo deploy/image.sh [--out DIR]           (./run image) the image, into DIR (default: dist/)
#   sudo deploy/image.sh --tree DIR [--arch A] only the installed root, for the architecture A
#                                              (default: this machine's), no kernel and no partitions:
#                                              what tests/test_boot.py boots in a container
#   sudo deploy/image.sh --keep-root DIR       also keep the Pi's built root in DIR (for --from-root)
#   sudo deploy/image.sh --from-root DIR       the card from a root kept before (no new Debian root)
#   sudo deploy/image.sh --signing DIR         the card trusts DIR's certificate, and the update
#                                              bundle clabber-VERSION.raucb is signed with DIR's key
#                                              (deploy/signing-key.sh; default: $CLABBER_SIGNING)
#   sudo deploy/image.sh --no-xz               the card as a raw .img (for ./run test-image), not .img.xz
#   sudo deploy/image.sh --bundle-only         (./run bundle) only the signed bundle, no card
#
# As root on Debian (x86-64 or arm64): installs mmdebstrap, qemu-user-static, dosfstools, mtools,
# fdisk and xz-utils when missing. Needs the Debian mirror (CLABBER_IMAGE_MIRROR, default
# deb.debian.org; a snapshot.debian.org address fixes every package's version) and PyPI (the
# lock's hashes fix every wheel). The packages' versions are written beside the image.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=$SRC/dist
TREE=""
ARCH=""
KEEP_ROOT=""
FROM_ROOT=""
NO_XZ=""
BUNDLE_ONLY=""
SUITE=bookworm
MIRROR=${CLABBER_IMAGE_MIRROR:-http://deb.debian.org/debian}
SECURITY=${CLABBER_IMAGE_SECURITY:-http://deb.debian.org/debian-security}
BOOT_MB=256
DATA_MB=512  # the data partition as written; the first boot grows it over the rest of the card
SIGNING=${CLABBER_SIGNING:-}

die() { echo "image: $*" >&2; exit 2; }
say() { echo "image: $*"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || die "--out needs a directory"; OUT=$2; shift ;;
    --tree) [ $# -ge 2 ] || die "--tree needs a directory"; TREE=$2; shift ;;
    --arch) [ $# -ge 2 ] || die "--arch needs arm64 or amd64"; ARCH=$2; shift ;;
    --keep-root) [ $# -ge 2 ] || die "--keep-root needs a directory"; KEEP_ROOT=$2; shift ;;
    --from-root) [ $# -ge 2 ] || die "--from-root needs a directory"; FROM_ROOT=$2; shift ;;
    --signing) [ $# -ge 2 ] || die "--signing needs the signing key's directory"; SIGNING=$2; shift ;;
    --no-xz) NO_XZ=1 ;;
    --bundle-only) BUNDLE_ONLY=1 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
  shift
done
[ "$(id -u)" = 0 ] || die "run it as root (mmdebstrap, chroot and the filesystems need it): sudo $0"
command -v dpkg >/dev/null || die "this builds on Debian (dpkg and apt)"
HOST_ARCH=$(dpkg --print-architecture)
if [ -z "$TREE" ]; then ARCH=arm64; fi
if [ -n "$BUNDLE_ONLY" ] && { [ -z "$SIGNING" ] || [ ! -f "$SIGNING/clabber-updates.key.pem" ]; }; then
  die "a bundle needs the distributor's signing key: --signing DIR or CLABBER_SIGNING (./run signing-key DIR makes one)"
fi
ARCH=${ARCH:-$HOST_ARCH}
case "$ARCH" in arm64|amd64) ;; *) die "--arch: $ARCH is not arm64 or amd64" ;; esac
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$SRC/pyproject.toml")
# The same commit gives the same dates inside the image (mmdebstrap and mkfs take them from here).
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$SRC" log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH
T0=$(now)

# ---- the host's tools ---------------------------------------------------------------------------
need=()
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
if [ -z "$TREE" ]; then
  command -v mkfs.vfat >/dev/null || need+=(dosfstools)
  command -v mcopy >/dev/null || need+=(mtools)
  command -v sfdisk >/dev/null || need+=(fdisk)
  command -v xz >/dev/null || need+=(xz-utils)
  command -v mkimage >/dev/null || need+=(u-boot-tools)
  command -v rauc >/dev/null || need+=(rauc)
  command -v mksquashfs >/dev/null || need+=(squashfs-tools)
fi
if [ "$ARCH" != "$HOST_ARCH" ]; then
  [ -x /usr/bin/qemu-aarch64-static ] || need+=(qemu-user-static)
  command -v arch-test >/dev/null || need+=(arch-test)  # mmdebstrap checks the foreign root runs
fi
if [ ${#need[@]} -gt 0 ]; then
  say "installing on this machine: ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if [ "$ARCH" != "$HOST_ARCH" ]; then
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || die "cannot mount binfmt_misc"
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    conf=$(find /usr/lib/binfmt.d -name 'qemu-aarch64*.conf' 2>/dev/null | head -n 1)
    [ -n "$conf" ] || die "qemu-user-static installed no binfmt entry for aarch64 (/usr/lib/binfmt.d)"
    grep -v '^#' "$conf" | head -n 1 > /proc/sys/fs/binfmt_misc/register || die "cannot register $conf"
  fi
fi

# ---- the root: Debian's packages, then the kiosk (deploy/image/customize.sh) ---------------------
# systemd with its network, name and time services; avahi so phones find clabber-N.local; what
# the card's settings use (fdisk, e2fsprogs); the rest comes from the installer's own apt step.
PACKAGES=systemd,systemd-sysv,systemd-resolved,systemd-timesyncd,dbus,udev,kmod,iproute2,ca-certificates
PACKAGES+=,avahi-daemon,libnss-mdns,fdisk,e2fsprogs,python3,git,procps
COMPONENTS=main
KIND=tree
HOOKS=()
if [ -z "$TREE" ]; then
  KIND=pi
  COMPONENTS=main,non-free-firmware
  # The Pi's boot firmware and Debian's kernel (raspi-firmware copies both to the boot partition),
  # the Pi's Wi-Fi firmware and wpa_supplicant. The kernel from backports: bookworm's own 6.1 has
  # no device tree for the Pi 5 (bcm2712), backports' 6.12 has.
  PACKAGES+=,raspi-firmware,linux-image-arm64/$SUITE-backports,initramfs-tools,zstd,firmware-brcm80211,wpasupplicant
  # The updates: RAUC (its service on D-Bus) writes the slot not running; U-Boot, started by the
  # Pi's firmware, starts the slot the boot order names (deploy/image/boot.cmd).
  PACKAGES+=,rauc,rauc-service,squashfs-tools,u-boot-rpi,u-boot-tools
  # Written before the kernel is installed, so its hooks make the boot partition as the card needs it.
  # shellcheck disable=SC2016  # mmdebstrap's hook expands $1, not this shell
  HOOKS+=(--essential-hook='mkdir -p "$1/etc/default" "$1/etc/initramfs-tools/conf.d"')
  HOOKS+=(--essential-hook="copy-in $SRC/deploy/image/raspi-firmware $SRC/deploy/image/raspi-extra-cmdline /etc/default")
  HOOKS+=(--essential-hook="upload $SRC/deploy/image/initramfs.conf /etc/initramfs-tools/conf.d/clabber.conf")
  # mkinitramfs takes minutes under emulation, and the kernel's, initramfs-tools' and the firmware's
  # packages would each run it: it is held off while they install and run once (customize.sh).
  # shellcheck disable=SC2016  # mmdebstrap's hook expands $1, not this shell
  HOOKS+=(--essential-hook='chroot "$1" dpkg-divert --quiet --local --rename --add /usr/sbin/update-initramfs &&
    printf "#!/bin/sh\nexit 0\n" > "$1/usr/sbin/update-initramfs" && chmod 0755 "$1/usr/sbin/update-initramfs"')
fi
WORK=$(mktemp -d /var/tmp/clabber-image.XXXXXX)
cleanup() { rm -rf --one-file-system "$WORK"; }
trap cleanup EXIT
ROOT=$WORK/root
[ -z "$TREE" ] || ROOT=$TREE
if [ -n "$TREE" ] && [ -e "$TREE" ] && [ -n "$(ls -A "$TREE" 2>/dev/null)" ]; then die "--tree $TREE: not empty"; fi

# The release with its updates and security fixes (and, for the Pi, backports for the kernel).
SOURCES=("deb $MIRROR $SUITE ${COMPONENTS//,/ }" "deb $MIRROR $SUITE-updates ${COMPONENTS//,/ }"
  "deb $SECURITY $SUITE-security ${COMPONENTS//,/ }")
[ "$KIND" = tree ] || SOURCES+=("deb $MIRROR $SUITE-backports ${COMPONENTS//,/ }")

t=$(now)
if [ -n "$FROM_ROOT" ]; then
  [ -x "$FROM_ROOT/opt/clabber/venv/bin/clabber" ] || die "--from-root $FROM_ROOT: no built root there (--keep-root makes one)"
  say "the root kept in $FROM_ROOT"
  cp -a "$FROM_ROOT" "$ROOT"
else
say "building the Debian $SUITE $ARCH root ($KIND) from $MIRROR"
# force-confold: the files the hooks wrote before their packages (raspi-firmware's defaults) stay.
if ! mmdebstrap --arch="$ARCH" --variant=minbase --components="$COMPONENTS" --include="$PACKAGES" --dpkgopt=force-confold \
     "${HOOKS[@]}" --customize-hook="bash '$SRC/deploy/image/customize.sh' \"\$1\" $KIND" \
     "$SUITE" "$ROOT" "${SOURCES[@]}" > "$WORK/build.log" 2>&1; then
  tail -n 40 "$WORK/build.log" >&2
  die "building the root failed (the lines above)"
fi
grep '^image: \|^  install.sh:' "$WORK/build.log" || true
fi
ROOT_S=$(since "$t")
if [ -n "$KEEP_ROOT" ] && [ -z "$TREE" ]; then
  rm -rf --one-file-system "$KEEP_ROOT"
  cp -a "$ROOT" "$KEEP_ROOT"
  say "the root is kept in $KEEP_ROOT"
fi
say "root built in ${ROOT_S}s"
if [ -n "$TREE" ]; then
  say "the installed tree is in $TREE"
  exit 0
fi

# ---- the card: boot (FAT), system A and B (read-only ext4), data (ext4), made without mounting ----
mkdir -p "$OUT"
NAME=clabber-$VERSION-arm64
# shellcheck disable=SC2016  # dpkg-query's format, not this shell's
chroot "$ROOT" dpkg-query -W -f '${Package} ${Version}\n' > "$OUT/$NAME.packages"
# The volume ids and the filesystems' UUIDs follow the version, so a rebuild names them the same.
IDS=$(printf '%s' "$NAME" | sha256sum)
VOLID=${IDS:0:8}
uuid() { printf '%s-%s-4%s-8%s-%s' "${1:0:8}" "${1:8:4}" "${1:12:3}" "${1:15:3}" "${1:18:12}"; }
UUID=$(uuid "${IDS:8:30}")
DATA_UUID=$(uuid "${IDS:34:30}")
t=$(now)
# The keyring the card trusts: the distributor's certificate; without one, a key made for this
# build and thrown away, so the card takes no bundle at all (said below).
KEYRING=$SIGNING/clabber-updates.cert.pem
if [ -z "$SIGNING" ]; then
  bash "$SRC/deploy/signing-key.sh" "$WORK/throwaway" >/dev/null
  KEYRING=$WORK/throwaway/clabber-updates.cert.pem
fi
[ -f "$KEYRING" ] || die "--signing $SIGNING: no clabber-updates.cert.pem there (./run signing-key DIR makes it)"
bash "$SRC/deploy/image/slots.sh" "$ROOT" "$WORK/data" "$VOLID" "$KEYRING"
mkfs.vfat -C -n CLABBERBOOT -i "$VOLID" "$WORK/boot.img" $((BOOT_MB * 1024)) >/dev/null
(cd "$ROOT/boot/firmware" && mcopy -s -p -m -i "$WORK/boot.img" ./* ::/)
find "$ROOT/boot/firmware" -mindepth 1 -delete
# The system's filesystem: what it holds and a fifth more, no journal (never written while it
# runs); each slot has room for a system half as big again. The same file is the bundle's image.
used_mb=$(du -sm --apparent-size "$ROOT" | cut -f1)
system_mb=$(( used_mb * 6 / 5 + 64 ))
SLOT_MB=$(( (used_mb * 3 / 2 + 255) / 256 * 256 ))
[ "$SLOT_MB" -ge "$system_mb" ] || SLOT_MB=$system_mb
E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH mkfs.ext4 -q -F -O ^has_journal -L clabber-system -U "$UUID" \
  -E "root_owner=0:0,hash_seed=$UUID" -d "$ROOT" "$WORK/system.img" "${system_mb}M"
if [ -n "$BUNDLE_ONLY" ]; then
  bash "$SRC/deploy/image/bundle.sh" "$WORK/system.img" "$VERSION" "$SIGNING" "$OUT/clabber-$VERSION.raucb"
  say "times: root ${ROOT_S}s, system and bundle $(since "$t")s, whole build $(since "$T0")s"
  exit 0
fi
E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH mkfs.ext4 -q -F -L clabber-data -U "$DATA_UUID" \
  -E "root_owner=0:0,hash_seed=$DATA_UUID" -d "$WORK/data" "$WORK/data.img" "${DATA_MB}M"
# MBR: the Pi's firmware reads the first partition (FAT) for its files; B is empty until the first update.
image=$WORK/$NAME.img
boot_start=8192  # 4 MiB in
a_start=$(( boot_start + BOOT_MB * 2048 ))
b_start=$(( a_start + SLOT_MB * 2048 ))
data_start=$(( b_start + SLOT_MB * 2048 ))
truncate -s $(( (data_start + DATA_MB * 2048) * 512 )) "$image"
sfdisk -q "$image" <<EOF
label: dos
label-id: 0x$VOLID
start=$boot_start, size=$(( BOOT_MB * 2048 )), type=c, bootable
start=$a_start, size=$(( SLOT_MB * 2048 )), type=83
start=$b_start, size=$(( SLOT_MB * 2048 )), type=83
start=$data_start, type=83
EOF
dd if="$WORK/boot.img" of="$image" bs=1M seek=$(( boot_start / 2048 )) conv=notrunc,sparse status=none
dd if="$WORK/system.img" of="$image" bs=1M seek=$(( a_start / 2048 )) conv=notrunc,sparse status=none
dd if="$WORK/data.img" of="$image" bs=1M seek=$(( data_start / 2048 )) conv=notrunc,sparse status=none
if [ -n "$SIGNING" ] && [ -f "$SIGNING/clabber-updates.key.pem" ]; then
  bash "$SRC/deploy/image/bundle.sh" "$WORK/system.img" "$VERSION" "$SIGNING" "$OUT/clabber-$VERSION.raucb"
else
  say "no signing key given (--signing DIR, CLABBER_SIGNING): this card trusts no distributor and takes no update"
fi
CARD_S=$(since "$t")
size_img=$(( $(stat -c %s "$image") / 1048576 ))
if [ -n "$NO_XZ" ]; then
  cp --sparse=always "$image" "$OUT/$NAME.img.new"
  mv "$OUT/$NAME.img.new" "$OUT/$NAME.img"
  say "wrote $OUT/$NAME.img: ${size_img} MB (the data partition grows over the card at the first boot)"
  say "times: root ${ROOT_S}s, card ${CARD_S}s, whole build $(since "$T0")s"
  exit 0
fi
t=$(now)
xz -T0 -6 -c "$image" > "$OUT/$NAME.img.xz.new"
mv "$OUT/$NAME.img.xz.new" "$OUT/$NAME.img.xz"
(cd "$OUT" && sha256sum "$NAME.img.xz" > "$NAME.img.xz.sha256")
XZ_S=$(since "$t")
size_xz=$(du -m "$OUT/$NAME.img.xz" | cut -f1)
say "wrote $OUT/$NAME.img.xz: ${size_xz} MB compressed, ${size_img} MB on the card (the data partition grows over the card at the first boot)"
say "sha256 $(cut -d' ' -f1 "$OUT/$NAME.img.xz.sha256"); packages: $OUT/$NAME.packages ($(wc -l < "$OUT/$NAME.packages"))"
say "times: root ${ROOT_S}s, card ${CARD_S}s, xz ${XZ_S}s, whole build $(since "$T0")s"
