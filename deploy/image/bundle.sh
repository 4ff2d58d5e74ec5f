#!/usr/bin/env bash
# Makes a signed RAUC bundle of a system slot's filesystem (deploy/image.sh runs it on the card's
# own slot image, so the bundle and the card come from one build):
#   deploy/image/bundle.sh SLOT.ext4 VERSION SIGNING_DIR OUT.raucb [COMPATIBLE]
# SIGNING_DIR holds the key deploy/signing-key.sh made. COMPATIBLE: clabber-pi-arm64.
set -euo pipefail
die() { echo "bundle: $*" >&2; exit 2; }
[ $# -ge 4 ] || die "usage: deploy/image/bundle.sh SLOT.ext4 VERSION SIGNING_DIR OUT.raucb [COMPATIBLE]"
SLOT=$1 VERSION=$2 SIGNING=$3 OUT=$4 COMPATIBLE=${5:-clabber-pi-arm64}
KEY=$SIGNING/clabber-updates.key.pem
CERT=$SIGNING/clabber-updates.cert.pem
[ -f "$SLOT" ] || die "$SLOT: no slot image"
if [ ! -f "$KEY" ] || [ ! -f "$CERT" ]; then die "$SIGNING: no signing key (make one once: ./run signing-key DIR)"; fi
command -v rauc >/dev/null || die "RAUC is needed (Debian: apt-get install rauc squashfs-tools)"
command -v mksquashfs >/dev/null || die "mksquashfs is needed (Debian: apt-get install squashfs-tools)"
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/clabber-bundle.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/content"
ln "$SLOT" "$WORK/content/rootfs.ext4" 2>/dev/null || cp --sparse=always "$SLOT" "$WORK/content/rootfs.ext4"
cat > "$WORK/content/manifest.raucm" <<MANIFEST
[update]
compatible=$COMPATIBLE
version=$VERSION

[bundle]
format=plain

[image.rootfs]
filename=rootfs.ext4
MANIFEST
rm -f "$OUT.new"
rauc bundle --cert="$CERT" --key="$KEY" "$WORK/content" "$OUT.new" > "$WORK/rauc.log" 2>&1 || { cat "$WORK/rauc.log" >&2; die "rauc could not make the bundle"; }
mv "$OUT.new" "$OUT"
echo "bundle: $OUT ($(( $(stat -c %s "$OUT") / 1048576 )) MB, version $VERSION for $COMPATIBLE)"
