#!/usr/bin/env bash
# The smoke set that deploy/test-arm64.sh runs inside the emulated arm64 root, after the
# installer: the kiosk's first frame (as the service's user, offscreen on Mesa), the libraries it
# loads, clabber score on the examples, a game through clabber game, the result server on
# loopback and a QR code (decoded afterwards on the host). Prints "arm64:" and "smoke:" lines.
set -euo pipefail

VENV=/opt/clabber/venv
C=$VENV/bin/clabber
PY=$VENV/bin/python
D=/tmp/clabber-smoke
EX=$D/examples  # a copy the service users can read (the checkout is under /root)
PORT=18080

fail() { echo "smoke: FAILED: $*" >&2; exit 1; }
ms() { date +%s%3N; }
as_kiosk() { runuser -u clabber -- env HOME=/var/lib/clabber "$@"; }

rm -rf "$D"
install -d -o clabber -g clabber -m 0750 "$D" /var/lib/clabber  # systemd's StateDirectory= on a Pi
cp -r "$(dirname "$0")/../examples" "$EX"
chown -R clabber:clabber "$EX"

echo "arm64: uname -m = $(uname -m)"
echo "arm64: $(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release)"
echo "arm64: $("$PY" --version)"
echo "arm64: Kivy $("$PY" -c 'from importlib.metadata import version; print(version("Kivy"))')"

# ---- every compiled module in the environment finds its libraries ----------------------------
# A wheel's bundled libraries (Kivy.libs/, pillow.libs/) find each other in their own folder.
# Kivy's X11 window provider is left out: the kiosk uses the SDL2 window (kiosk/ui/boot.py).
missing=""
checked=0
while IFS= read -r -d '' so; do
  case "$so" in */kivy/core/window/window_x11.*) continue ;; esac
  checked=$((checked + 1))
  out=$(LD_LIBRARY_PATH=$(dirname "$so") ldd "$so" 2>&1 | grep 'not found' || true)
  [ -z "$out" ] || missing+="$so:"$'\n'"$out"$'\n'
done < <(find "$VENV/" -name '*.so*' -type f -print0)
[ -z "$missing" ] || fail "libraries not found by ldd:
$missing"
echo "smoke: ldd on $checked shared objects in the venv: none missing (Kivy's unused X11 window provider aside)"

# ---- the kiosk's first frame, as clabber-kiosk.service runs it (but offscreen) ---------------
start=$(ms)
frame=""
status=""
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$D/kiosk.log"
  case "$line" in
    first-frame*) frame=$(( $(ms) - start )) ;;
    "kiosk-exit="*) status=${line#kiosk-exit=} ;;
  esac
done < <(as_kiosk LD_DEBUG=libs LD_DEBUG_OUTPUT="$D/ld" timeout 600 "$C" kiosk --db "$D/k.db" --headless \
           --exit-at-first-frame 2>&1; echo "kiosk-exit=$?")
if [ -z "$frame" ] || [ "$status" != 0 ]; then
  cat "$D/kiosk.log" >&2
  fail "the kiosk drew no first frame (exit $status)"
fi
echo "arm64: kiosk first frame after ${frame} ms (cold start under emulation; whole run $(( $(ms) - start )) ms)"
grep -E 'GL: OpenGL (vendor|renderer|version)|Window: Provider|clabber.gpio' "$D/kiosk.log" | sed 's/^/smoke:   /' || true

# The libraries it loaded from the system (not from the venv), and the packages they come from.
libs=$(sed -n 's/.*calling init: \(\/.*\)$/\1/p' "$D"/ld.* | grep -v "^$VENV/\|^/opt/clabber/" | sort -u)
pkgs=$(for lib in $libs; do
         dpkg -S "$lib" 2>/dev/null || dpkg -S "${lib#/usr}" 2>/dev/null || dpkg -S "/usr$lib" 2>/dev/null ||
           echo "NONE: $lib"
       done | cut -d: -f1 | sort -u)
if grep -q '^NONE' <<<"$pkgs"; then fail "a loaded library belongs to no package: $pkgs"; fi
echo "smoke: $(wc -w <<<"$libs") system libraries loaded, from: $(tr '\n' ' ' <<<"$pkgs")"

# ---- clabber score on the examples; a game through clabber game ------------------------------
for f in "$EX"/hand-*.json; do
  out=$("$C" score "$f")
  echo "smoke: clabber score $(basename "$f"): $("$PY" -c 'import json,sys; d=json.load(sys.stdin); print("score", d["score"])' <<<"$out")"
done
echo "smoke: clabber sheet game.json: $("$C" sheet "$EX/game.json" | head -c 120)…"

g=$(as_kiosk "$C" game --db "$D/k.db" new --teams Ours Theirs --first-dealer E)
row=$(as_kiosk "$C" game --db "$D/k.db" hand "$g" "$EX/hand-quick.json")
grep -q '"score": {"NS": 110, "EW": 92}' <<<"$row" || fail "game hand: $row"
imported=$(as_kiosk "$C" game --db "$D/k.db" import "$EX/game.json")
echo "smoke: clabber game new/hand: game $g, row $row"
echo "smoke: clabber game import game.json: game $imported"
as_kiosk "$C" game --db "$D/k.db" list | sed 's/^/smoke:   /'

# ---- the QR code and the result server on loopback -------------------------------------------
url=$(as_kiosk "$C" qr --db "$D/k.db" "$g" --png "$D/qr.png" --public-url "http://127.0.0.1:$PORT" 2>&1 >/dev/null)
[ -s "$D/qr.png" ] || fail "clabber qr wrote no PNG"
echo "smoke: qr url $url"

# As the kiosk's user: with the kiosk stopped, a reader that may not write the folder cannot open
# the WAL-mode file (clabber-web.service's user; a Pi's running kiosk keeps the -wal and -shm).
# In a session of its own, so that the whole of it (runuser and the server) can be stopped.
setsid runuser -u clabber -- env HOME=/var/lib/clabber "$C" serve --db "$D/k.db" --host 127.0.0.1 --port "$PORT" \
  > "$D/serve.log" 2>&1 &
server=$!
trap 'kill -- -"$server" 2>/dev/null || true' EXIT
start=$(ms)
page=$("$PY" - "$url" <<'EOF'
import sys, time, urllib.error, urllib.request

deadline = time.monotonic() + 300  # the server starts slowly under emulation
while True:
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=30) as r:
            print(r.status, r.read().decode())
            break
    except urllib.error.HTTPError as e:
        print(e.code, e.read().decode()[:300])
        break
    except OSError:
        if time.monotonic() > deadline:
            raise
        time.sleep(0.5)
EOF
)
case "$page" in
  "200 "*Ours*Theirs*) echo "smoke: result server answered 200 on 127.0.0.1:$PORT after $(( $(ms) - start )) ms (page names both teams)" ;;
  *) cat "$D/serve.log" >&2; fail "result page: ${page:0:300}" ;;
esac
kill -- -"$server"
wait "$server" 2>/dev/null || true
echo "smoke: passed"
