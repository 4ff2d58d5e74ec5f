#!/usr/bin/env bash
# Makes the distributor's update signing key, once (./run signing-key DIR):
#   DIR/clabber-updates.key.pem   the private key (only its owner may read it)
#   DIR/clabber-updates.cert.pem  its certificate: the keyring every card built with it trusts
# Keep DIR off the repository, on the build machine, and backed up: a card takes only bundles
# signed by this key, so a lost key means a new card for every table. It never overwrites a key.
set -euo pipefail
die() { echo "signing-key: $*" >&2; exit 2; }
[ $# -eq 1 ] || die "usage: deploy/signing-key.sh DIR"
DIR=$1
KEY=$DIR/clabber-updates.key.pem
CERT=$DIR/clabber-updates.cert.pem
[ ! -e "$KEY" ] || die "$KEY exists: every card built with it trusts only it, so it is kept (move it away first to make another)"
command -v openssl >/dev/null || die "openssl is needed (Debian: apt-get install openssl)"
umask 077
mkdir -p "$DIR"
# P-256: small signatures RAUC checks quickly on a Pi; 20 years, longer than a card lives.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$KEY.new" -out "$CERT.new" \
  -days 7300 -subj "/O=Clabber/CN=Clabber kiosk updates" 2>/dev/null || die "openssl could not make the key"
chmod 0600 "$KEY.new"
chmod 0644 "$CERT.new"
mv "$CERT.new" "$CERT"
mv "$KEY.new" "$KEY"
echo "signing-key: made $KEY (keep it safe and private) and $CERT (built into every card: its keyring)"
