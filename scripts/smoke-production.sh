#!/usr/bin/env bash
# The production install, as an operator does it, in a scratch copy of this checkout:
#   npm ci && npm run build && npm prune --omit=dev
# then, with plain node and no development dependency left (no tsx, no TypeScript):
# - `logos-node start` runs a devnet node: blocks are produced and /cryptarchia/info answers;
# - `logosctl daemon start --detach` runs the operator level: `logosctl module ls` lists the six
#   modules (three bundled, three shipped), then `logosctl daemon stop` ends it.
# Exits non-zero on any failure. The devnet node's API is 127.0.0.1:8080, which must be free.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PORT=8080
WORK="$(mktemp -d "${TMPDIR:-/tmp}/logos-smoke.XXXXXX")"
NODE_PID=""
cleanup() {
  if [ -n "$NODE_PID" ]; then kill "$NODE_PID" 2>/dev/null || true; wait "$NODE_PID" 2>/dev/null || true; fi
  if [ -x "$WORK/app/node_modules/.bin/logosctl" ]; then
    "$WORK/app/node_modules/.bin/logosctl" --config-dir "$WORK/session" daemon stop >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "smoke: FAILED: $*" >&2; [ -f "$WORK/node.log" ] && tail -20 "$WORK/node.log" >&2; exit 1; }

echo "smoke: copying the checkout's tracked files to $WORK/app"
mkdir -p "$WORK/app"
git -C "$ROOT" ls-files -z | (cd "$ROOT" && xargs -0 cp --parents -t "$WORK/app")
cd "$WORK/app"
# the copy is not a git checkout: the build records the checkout's commit from the environment
LOGOS_BUILD_COMMIT="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || true)"
export LOGOS_BUILD_COMMIT
npm ci --no-audit --no-fund --loglevel=error
npm run build --silent
npm prune --omit=dev --no-audit --no-fund --loglevel=error
[ ! -e node_modules/tsx ] || fail "tsx is still installed after the prune"
[ ! -e node_modules/typescript ] || fail "typescript is still installed after the prune"
BIN="$WORK/app/node_modules/.bin"

echo "smoke: logos-node start (devnet, API on 127.0.0.1:$PORT)"
if curl -s -m 2 -o /dev/null "http://127.0.0.1:$PORT/"; then fail "127.0.0.1:$PORT is in use"; fi
mkdir -p "$WORK/node"
(cd "$WORK/node" && exec "$BIN/logos-node" start --log-format json) >"$WORK/node.log" 2>&1 &
NODE_PID=$!
height=0
for _ in $(seq 1 90); do
  sleep 1
  kill -0 "$NODE_PID" 2>/dev/null || fail "logos-node exited"
  info="$(curl -sf "http://127.0.0.1:$PORT/cryptarchia/info" || true)"
  height="$(printf '%s' "$info" | sed -n 's/.*"height":\([0-9]*\).*/\1/p')"
  if [ -n "$height" ] && [ "$height" -ge 2 ]; then break; fi
done
[ -n "$height" ] && [ "$height" -ge 2 ] || fail "no blocks produced within 90 s (height ${height:-none})"
grep -q '"msg":"block produced"' "$WORK/node.log" || fail "the log has no produced block"
echo "smoke: version $(curl -sf "http://127.0.0.1:$PORT/version")"
echo "smoke: height $height; $(grep -c '"msg":"block produced"' "$WORK/node.log") blocks produced"
kill "$NODE_PID"; wait "$NODE_PID" 2>/dev/null || true; NODE_PID=""

echo "smoke: logosctl daemon start --detach"
"$BIN/logosctl" --config-dir "$WORK/session" daemon start --detach
modules="$("$BIN/logosctl" --config-dir "$WORK/session" --json module ls)"
for m in capability_module package_manager package_downloader blockchain_module storage_module delivery_module; do
  printf '%s' "$modules" | grep -q "\"$m\"" || fail "logosctl module ls does not list $m: $modules"
done
"$BIN/logosctl" --config-dir "$WORK/session" daemon stop
echo "smoke: passed"
