#!/usr/bin/env bash
# Render a report's index.html to a PNG with headless Chromium, to look at it as a
# reader would (offline: no network, a fresh empty profile).
#
#   scripts/render_report.sh REPORT_DIR/index.html OUT.png [WIDTH [HEIGHT]]
#
# Needs Debian's `chromium` package (apt-get install chromium); CHROMIUM overrides the path.
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 INDEX_HTML OUT_PNG [WIDTH [HEIGHT]]" >&2
    exit 2
fi
page=$(realpath "$1")
out=$(realpath -m "$2")
width=${3:-1400}
height=${4:-4000}
chromium=${CHROMIUM:-/usr/bin/chromium}
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars \
    --screenshot="$out" --window-size="$width,$height" "file://$page" >/dev/null 2>&1
test -s "$out"
echo "$out"
