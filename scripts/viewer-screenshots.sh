#!/bin/sh
# Regenerates docs/viewer.png: runs the viewer's browser test (headless chromium over the example
# session), which keeps a screenshot of every page at 1280x800 and 390x844 in a folder, and copies
# the session page at 1280x800 to docs/viewer.png. The other screenshots stay in the folder
# (the first argument, else a new temporary one) to look at.
#
#   scripts/viewer-screenshots.sh [DIR]
set -eu
cd "$(dirname "$0")/.."
out="${1:-$(mktemp -d)}"
PRECIS_VIEWER_SCREENSHOTS="$(cd "$out" 2>/dev/null && pwd || (mkdir -p "$out" && cd "$out" && pwd))" \
  pnpm exec vitest run packages/cli/test/Browser.test.ts
cp "$out/session-1280.png" docs/viewer.png
echo "docs/viewer.png updated; every page at both widths is in $out"
