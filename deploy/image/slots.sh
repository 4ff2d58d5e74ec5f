#!/usr/bin/env bash
# The card's A/B layout over a built root (deploy/image.sh runs it before it makes the filesystems):
# the system slot is read-only, so everything a running Pi writes moves to the data partition
# (bound back where the programs look) or to memory; RAUC's system and keyring; the kernel and
# initramfs where U-Boot loads them from a slot; U-Boot and its script on the boot partition.
#
#   deploy/image/slots.sh ROOT DATA DISK_ID KEYRING
#     ROOT     the built root (changed in place: it becomes the system slot's content)
#     DATA     an empty folder: the data partition's first content is put there
#     DISK_ID  the card's MBR id (8 hex digits): RAUC finds the slots by their partition ids
#     KEYRING  the certificate the card trusts bundles signed by (deploy/signing-key.sh)
set -euo pipefail
die() { echo "slots: $*" >&2; exit 2; }
[ $# -eq 4 ] || die "usage: deploy/image/slots.sh ROOT DATA DISK_ID KEYRING"
ROOT=$1 DATA=$2 DISK=$3 KEYRING=$4
SRC=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$SRC/deploy/image
BOOT=$ROOT/boot/firmware
[ -f "$KEYRING" ] || die "$KEYRING: no certificate"

# ---- the card's own files, from this checkout (a card made --from-root gets them fresh) ----------
install -D -m 0644 "$HERE/card.py" "$ROOT/usr/local/lib/clabber/card.py"
install -D -m 0644 "$HERE/wpa_supplicant-card.conf" "$ROOT/etc/systemd/system/wpa_supplicant@.service.d/card.conf"
for unit in clabber-update.service clabber-update-check.service; do
  install -m 0644 "$SRC/systemd/$unit" "$ROOT/etc/systemd/system/$unit"
  ln -sfn "/etc/systemd/system/$unit" "$ROOT/etc/systemd/system/multi-user.target.wants/$unit"
done

# ---- what a running Pi writes: on the data partition, bound back into place ---------------------
# The games and backups, the updater's state and downloads, a league server's database, the card's
# own marks, systemd's (timers, clock, random seed), the journal, and the kiosk's config.
STATE=(var/lib/clabber var/lib/clabber-update var/lib/clabber-league var/lib/clabber-card var/lib/systemd var/log etc/clabber)
binds=""
for d in "${STATE[@]}"; do
  mkdir -p "$ROOT/$d" "$DATA/$d"
  cp -a "$ROOT/$d/." "$DATA/$d/"
  find "$ROOT/$d" -mindepth 1 -delete
  binds+="/data/$d  /$d  none  bind,x-systemd.requires-mounts-for=/data  0 0"$'\n'
done
mkdir -p "$ROOT/data" "$DATA/rauc"
cat > "$ROOT/etc/fstab" <<FSTAB
# The card: the read-only system slot the kernel was started on (root=, ro: not listed here, so
# it stays read-only), the Pi's boot partition, and the data partition with what the Pi writes.
LABEL=CLABBERBOOT  /boot/firmware  vfat  defaults,noatime,umask=0022,flush  0 2
PARTUUID=$DISK-04  /data  ext4  defaults,noatime,commit=5  0 2
${binds}tmpfs  /tmp  tmpfs  mode=1777,nosuid,nodev,size=64M  0 0
tmpfs  /var/tmp  tmpfs  mode=1777,nosuid,nodev,size=64M  0 0
FSTAB
cat "$SRC/deploy/clabber-usb.fstab" >> "$ROOT/etc/fstab"
mkdir -p "$ROOT/mnt/clabber-usb"
# The journal on the data partition, bounded (a read-only system makes a new machine id each boot).
install -d "$ROOT/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=persistent\nSystemMaxUse=64M\n' > "$ROOT/etc/systemd/journald.conf.d/clabber.conf"

# ---- RAUC: the two slots by partition id, its state on the data partition, the keyring ---------
install -d "$ROOT/etc/rauc" "$ROOT/usr/local/lib/clabber"
install -m 0755 "$HERE/clabber-slot" "$ROOT/usr/local/lib/clabber/clabber-slot"
install -m 0644 "$KEYRING" "$ROOT/etc/rauc/keyring.pem"
cat > "$ROOT/etc/rauc/system.conf" <<CONF
[system]
compatible=clabber-pi-arm64
bootloader=custom
data-directory=/data/rauc
bundle-formats=plain

[handlers]
bootloader-custom-backend=/usr/local/lib/clabber/clabber-slot

[keyring]
path=/etc/rauc/keyring.pem

[slot.rootfs.0]
device=/dev/disk/by-partuuid/$DISK-02
type=ext4
bootname=A

[slot.rootfs.1]
device=/dev/disk/by-partuuid/$DISK-03
type=ext4
bootname=B
CONF

# ---- the kernel in the slot, where U-Boot loads it (uncompressed: booti takes an Image) ---------
kernel=$(find "$ROOT/boot" -maxdepth 1 -name 'vmlinuz-*' | sort -V | tail -n 1)
initrd=$(find "$ROOT/boot" -maxdepth 1 -name 'initrd.img-*' | sort -V | tail -n 1)
if [ -z "$kernel" ] || [ -z "$initrd" ]; then die "no kernel or initramfs in $ROOT/boot"; fi
install -d "$ROOT/boot/clabber"
if gzip -t "$kernel" 2>/dev/null; then zcat "$kernel" > "$ROOT/boot/clabber/Image"; else cp "$kernel" "$ROOT/boot/clabber/Image"; fi
cp "$initrd" "$ROOT/boot/clabber/initrd.img"

# ---- the boot partition: the Pi's firmware starts U-Boot, U-Boot runs boot.scr ------------------
uboot=$ROOT/usr/lib/u-boot/rpi_arm64/u-boot.bin
[ -f "$uboot" ] || die "no $uboot (u-boot-rpi)"
install -m 0644 "$uboot" "$BOOT/u-boot.bin"
mkimage -A arm64 -T script -C none -n "Clabber boot order" -d "$HERE/boot.cmd" "$BOOT/boot.scr" >/dev/null
# The kernel's line as raspi-firmware made it for the Pi, less the root (boot.cmd names the slot).
cmdline=$(sed -e 's/root=[^ ]*//; s/\<rw\>//; s/  */ /g; s/^ //; s/ $//' "$BOOT/cmdline.txt")
printf 'CMDLINE=%s\n' "$cmdline" > "$BOOT/clabber-boot.env"
printf 'BOOT_ORDER=A B\nBOOT_A_LEFT=3\nBOOT_B_LEFT=3\n' > "$BOOT/clabber-slot.env"
sed -i -e 's/^kernel=.*/kernel=u-boot.bin/' -e '/^initramfs /d' "$BOOT/config.txt"
grep -q '^kernel=u-boot.bin' "$BOOT/config.txt" || printf 'kernel=u-boot.bin\n' >> "$BOOT/config.txt"
rm -f "$BOOT"/vmlinuz* "$BOOT"/initrd.img*  # the kernel is each slot's own
echo "slots: read-only system with ${#STATE[@]} places on the data partition; U-Boot starts system A first"
