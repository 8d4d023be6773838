#!/usr/bin/env bash
# A newcomer's two commands on a fresh clone, in a folder only its owner can enter (`mktemp -d`
# gives 0700; run it as root to check the embedded PostgreSQL's "Running as root" path):
#   1. npm install            (must print no error; on Node 20 npm warns EBADENGINE: see README)
#   2. npm start              until the banner, then SIGTERM to npm: must stop cleanly, leave nothing
#   3. npm test               (skip with FRESH_CLONE_SKIP_TESTS=1: it takes a long while)
# Slow (a full install, first start and test run), so CI does not run it; run it by hand:
#   bash scripts/fresh-clone-check.sh [repository, default: this one] [ref, default: HEAD]
set -euo pipefail

source_repo="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
ref="${2:-HEAD}"
ref_commit="$(git -C "$source_repo" rev-parse "$ref")"
work="$(mktemp -d)"
echo "== Fresh clone of $source_repo at $ref_commit in $work (mode $(stat -c %a "$work"), user $(id -un))"

npm_pid=""
cleanup() {
  if [ -n "$npm_pid" ] && kill -0 "$npm_pid" 2> /dev/null; then kill -TERM "$npm_pid" || true; fi
  if [ "${FRESH_CLONE_KEEP:-0}" != 1 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT

git clone --quiet "$source_repo" "$work/repo"
git -C "$work/repo" checkout --quiet "$ref_commit"
cd "$work/repo"

seconds() { echo $(($(date +%s) - $1)); }

t0=$(date +%s)
npm install --no-audit --no-fund 2>&1 | tee "$work/install.log"
echo "== npm install: $(seconds "$t0") s, $(grep -c 'EBADENGINE Unsupported engine' "$work/install.log" || true) engine warning(s)"

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
export PORT=0 ANVIL_PORT="$(free_port)" EMBEDDED_PG_PORT="$(free_port)"

t0=$(date +%s)
npm start > "$work/start.log" 2>&1 &
npm_pid=$!
deadline=$((t0 + 240))
until grep -q "Press Ctrl-C to stop" "$work/start.log"; do
  if ! kill -0 "$npm_pid" 2> /dev/null; then
    cat "$work/start.log"
    echo "== npm start exited before it was ready" >&2
    exit 1
  fi
  if [ "$(date +%s)" -gt "$deadline" ]; then
    cat "$work/start.log"
    echo "== npm start was not ready within 240 s" >&2
    exit 1
  fi
  sleep 1
done
echo "== npm start: ready in $(seconds "$t0") s"
pids="$(sed -n 's/^ *Processes *//p' "$work/start.log" | grep -oE '[0-9]+')"

t0=$(date +%s)
kill -TERM "$npm_pid"
wait "$npm_pid" || {
  cat "$work/start.log"
  echo "== npm start exited non-zero after SIGTERM" >&2
  exit 1
}
npm_pid=""
cat "$work/start.log"
for pid in $pids; do
  if kill -0 "$pid" 2> /dev/null; then
    echo "== process $pid is still running after the stop" >&2
    exit 1
  fi
done
echo "== npm start: stopped in $(seconds "$t0") s after SIGTERM to npm; nothing left"

if [ "${FRESH_CLONE_SKIP_TESTS:-0}" = 1 ]; then
  echo "== npm test skipped (FRESH_CLONE_SKIP_TESTS=1)"
  exit 0
fi
t0=$(date +%s)
unset PORT ANVIL_PORT EMBEDDED_PG_PORT
npm test
echo "== npm test: passed in $(seconds "$t0") s"
