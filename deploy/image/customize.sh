#!/usr/bin/env bash
# What the image adds to a fresh Debian root (deploy/image.sh runs it as mmdebstrap's customize
# hook, with /proc, /sys and /dev mounted in the root): the kiosk through deploy/install.sh as on a
# hand-made Pi, the card's settings (clabber-card.service), the network, and for the Pi its boot
# partition's files. Then it takes away what only the build needed.
#
#   deploy/image/customize.sh ROOT pi|tree
set -euo pipefail

ROOT=$1
KIND=$2
SRC=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$SRC/deploy/image
say() { echo "image: $*"; }
die() { echo "image: $*" >&2; exit 2; }
in_root() {
  chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb PIP_CERT=/etc/ssl/build-ca.crt PIP_DEFAULT_TIMEOUT=180 "$@"
}

# ---- what the build needs inside: the checkout, the host's trust for PyPI, its apt settings -----
install -d "$ROOT/root/clabber"
# The checkout as a clone would have it (tracked and new files; not .venv or other ignored ones).
# shellcheck disable=SC2016  # the inner sh expands it
git -C "$SRC" ls-files -z --cached --others --exclude-standard |
  (cd "$SRC" && xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
  tar -C "$SRC" --null -T - -cf - | tar -C "$ROOT/root/clabber" -xf -
install -m 0644 /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/build-ca.crt"
# Names resolved as the host resolves them (systemd-resolved's stub answers only once booted).
rm -f "$ROOT/etc/resolv.conf"
install -m 0644 /etc/resolv.conf "$ROOT/etc/resolv.conf"
# A mirror whose Release files are past their date (a snapshot) is accepted inside as outside.
if [ -f /etc/apt/apt.conf.d/99artifact-registry ]; then
  install -m 0644 /etc/apt/apt.conf.d/99artifact-registry "$ROOT/etc/apt/apt.conf.d/99clabber-build"
fi

# ---- the Pi's card: what the kernel packages wrote to the boot partition, and the mounts -------
if [ "$KIND" = pi ]; then
  # The initramfs, made once now that every package that asks for it is in (deploy/image.sh held
  # it off); raspi-firmware's hook then copies the kernel, the initramfs and the device trees.
  rm -f "$ROOT/usr/sbin/update-initramfs"
  chroot "$ROOT" dpkg-divert --quiet --local --rename --remove /usr/sbin/update-initramfs
  in_root update-initramfs -c -k all
  [ -f "$ROOT/boot/firmware/cmdline.txt" ] || die "raspi-firmware wrote no cmdline.txt"
  cat > "$ROOT/etc/fstab" <<'EOF'
# The card: the root filesystem and the Pi's boot partition (firmware, kernel, clabber-*.txt).
LABEL=clabber-root  /              ext4  defaults,noatime,commit=5  0 1
LABEL=CLABBERBOOT   /boot/firmware vfat  defaults,noatime,umask=0022,flush  0 2
EOF
fi

# ---- the kiosk, installed exactly as on a hand-made Pi ------------------------------------------
if ! in_root bash /root/clabber/deploy/install.sh > "$ROOT/root/install.log" 2>&1; then
  cat "$ROOT/root/install.log" >&2
  die "deploy/install.sh failed inside the root"
fi
sed 's/^/  /' "$ROOT/root/install.log"

# ---- the card's settings and the network --------------------------------------------------------
install -D -m 0644 "$HERE/card.py" "$ROOT/usr/local/lib/clabber/card.py"
install -m 0644 "$HERE/clabber-card.service" "$ROOT/etc/systemd/system/clabber-card.service"
install -D -m 0644 "$HERE/20-wired.network" "$ROOT/etc/systemd/network/20-wired.network"
install -m 0644 "$HERE/25-wireless.network" "$ROOT/etc/systemd/network/25-wireless.network"
install -D -m 0644 "$HERE/wpa_supplicant-card.conf" "$ROOT/etc/systemd/system/wpa_supplicant@.service.d/card.conf"
if [ -f "$ROOT/lib/systemd/system/wpa_supplicant@.service" ]; then
  # Wi-Fi starts when the Pi's Wi-Fi appears (and only with a network named on the card).
  install -d "$ROOT/etc/systemd/system/sys-subsystem-net-devices-wlan0.device.wants"
  ln -sfn /lib/systemd/system/wpa_supplicant@.service \
    "$ROOT/etc/systemd/system/sys-subsystem-net-devices-wlan0.device.wants/wpa_supplicant@wlan0.service"
fi
in_root systemctl enable clabber-card.service systemd-networkd.service systemd-resolved.service >/dev/null 2>&1
# resolved answers for the names (a league server's); its stub is what programs read.
ln -sfn ../run/systemd/resolve/stub-resolv.conf "$ROOT/etc/resolv.conf"
if [ "$KIND" = pi ]; then
  install -m 0644 "$HERE/clabber-wifi.txt" "$HERE/clabber-hostname.txt" "$ROOT/boot/firmware/"
fi
echo clabber > "$ROOT/etc/hostname"  # until the first boot names the table

# ---- what only the build needed -----------------------------------------------------------------
rm -rf "$ROOT/root/clabber" "$ROOT/root/.cache" "$ROOT/etc/ssl/build-ca.crt" "$ROOT/etc/apt/apt.conf.d/99clabber-build"
rm -f "$ROOT/root/install.log"
# Every Pi makes its own machine id (and so its own name from it where no serial number says one).
: > "$ROOT/etc/machine-id"
rm -f "$ROOT/var/lib/dbus/machine-id"
say "customized the root ($KIND)"
