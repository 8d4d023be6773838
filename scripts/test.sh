#!/usr/bin/env bash
# npm test: the fast unit tests (test/unit: pure modules, no chain, no database), then the
# contract tests (Hardhat: mocha + Solidity), then the node:test suites (deploy, relayer, e2e...).
# test/contracts is Hardhat's; every other folder under test/ runs with node:test.
# Every runner always runs; the script fails when any fails.
set -euo pipefail
shopt -s globstar nullglob
cd "$(dirname "$0")/.."

# npm puts node_modules/.bin (Node 22) first on PATH; make direct `bash scripts/test.sh` do the same.
export PATH="$PWD/node_modules/.bin:$PATH"

# Browser tests (test/console) drive a Chromium through playwright-core, which cannot download one
# here. Find it first (test/support/chromium.ts: CHROMIUM_PATH, chromium on PATH, Playwright's
# cache); when there is none, install Debian's package as root with apt (as .ci/run does), or stop
# now with one line that says what to do, before anything else runs.
find_chromium() { node --import tsx test/support/chromium.ts; }
if ! chromium_path="$(find_chromium 2> /dev/null)"; then
  if [ -z "${CHROMIUM_PATH:-}" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get > /dev/null; then
    echo "== No Chromium for the browser tests: installing Debian's chromium (apt-get, about 30 s)"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null; }; then
      echo "npm test: apt-get install chromium failed (see above); install it by hand or set CHROMIUM_PATH." >&2
      exit 1
    fi
  fi
  if ! chromium_path="$(find_chromium)"; then
    echo "npm test: stopped before running anything." >&2
    exit 1
  fi
fi
export CHROMIUM_PATH="$chromium_path"
echo "== Browser tests use $CHROMIUM_PATH"

# PKCS#11 tests (test/relayer/custody) run against a real SoftHSM2 token and look at it with
# OpenSC's pkcs11-tool (test/support/softhsm.ts). Same pattern: find them, else install Debian's
# packages as root with apt, else stop now saying what to install.
find_softhsm() { node --import tsx test/support/softhsm.ts; }
if ! softhsm_module="$(find_softhsm 2> /dev/null)"; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get > /dev/null; then
    echo "== No SoftHSM2 for the PKCS#11 tests: installing Debian's softhsm2 and opensc (apt-get)"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq softhsm2 opensc > /dev/null; }; then
      echo "npm test: apt-get install softhsm2 opensc failed (see above); install them by hand." >&2
      exit 1
    fi
  fi
  if ! softhsm_module="$(find_softhsm)"; then
    echo "npm test: stopped before running anything." >&2
    exit 1
  fi
fi
echo "== PKCS#11 tests use SoftHSM2 at $softhsm_module"

summary_dir="$(mktemp -d)"
postgres_pid=""
cleanup() {
  if [ -n "$postgres_pid" ]; then
    kill -TERM "$postgres_pid" 2> /dev/null || true
    wait "$postgres_pid" 2> /dev/null || true
  fi
  rm -rf "$summary_dir"
}
trap cleanup EXIT

# Without DATABASE_URL, one embedded PostgreSQL serves the whole run (test/support/run-postgres.ts),
# started now beside the unit tests; the integration files then use it as they would use
# DATABASE_URL's server (each in databases of its own), instead of each starting its own.
postgres_url_file="$summary_dir/postgres-url"
if [ -z "${DATABASE_URL:-}" ]; then
  node --import tsx test/support/run-postgres.ts "$postgres_url_file" > "$summary_dir/postgres.log" 2>&1 &
  postgres_pid=$!
fi

status=0

# The relayer's modules import the generated TypeChain factories (typechain-types/), and so does the
# console build below (its API types come from the route registry's OpenAPI document).
bash scripts/ensure-contract-types.sh

# What the integration files share (test/support/prepare-run.ts), made now beside the unit and
# contract tests: the contracts deployed once on an anvil whose state is saved, so that each test
# chain starts from it (test/support/chain-state.ts) instead of deploying again, and, on
# DATABASE_URL's server, the migrated template every test database is copied from
# (test/support/postgres.ts).
chain_state_dir="$summary_dir/chain-state"
mkdir -p "$chain_state_dir"
if [ -n "$postgres_pid" ]; then
  for _ in $(seq 1 600); do
    [ -s "$postgres_url_file" ] && break
    kill -0 "$postgres_pid" 2> /dev/null || break
    sleep 0.2
  done
  if [ -s "$postgres_url_file" ]; then
    DATABASE_URL="$(cat "$postgres_url_file")"
    export DATABASE_URL
    echo "== Integration tests share $(tail -n 1 "$summary_dir/postgres.log")"
  else
    echo "== The run's embedded PostgreSQL did not start (each test file starts its own):"
    tail -n 5 "$summary_dir/postgres.log"
  fi
fi
node --import tsx test/support/prepare-run.ts "$chain_state_dir" > "$summary_dir/prepare-run.log" 2>&1 &
prepare_pid=$!

# The browser tests (test/console) need the console's static export; on a fresh clone `next build`
# takes about a minute. Start it now, beside the unit and contract tests, instead of inside the
# first browser test; the node:test files start without waiting for it (the browser tests' own
# ensureConsoleBuilt waits for its lock). A build that failed here is tried again there and
# reported by the test.
console_log="$summary_dir/console-build.log"
node --import tsx --input-type=module -e '
const { ensureConsoleBuilt } = await import("./relayer/src/console/build-console.ts");
const result = await ensureConsoleBuilt({ print: (line) => console.log(line) });
console.log(`console build: ${result.status} in ${result.ms} ms`);' > "$console_log" 2>&1 &
console_pid=$!

echo "== Unit tests: test/unit (no chain, no database)"
if node --import tsx --test --experimental-test-isolation=none 'test/unit/**/*.test.ts' 2>&1 | tee "$summary_dir/unit.log"; then :; else status=1; fi

echo "== Contracts: hardhat test"
if hardhat test 2>&1 | tee "$summary_dir/hardhat.log"; then :; else status=1; fi

# node:test files outside test/contracts, one folder per concern. Several files run at a time, each
# in a process of its own with its own anvil, database, ports and temporary folders: most of a
# file's time is spent waiting on blocks, timers and the database, not on the CPU. A file whose
# first line is
#   // npm test: alone (why)
# runs afterwards, one at a time with nothing beside it: it asserts on elapsed time with little
# margin, or it runs several relayer processes (the reliability cluster) whose PostgreSQL
# connections would crowd another file. NODE_TEST_CONCURRENCY=1 runs every file one at a time.
#
# --test-timeout: a test file that runs longer than FILE_TIMEOUT_MS (15 minutes; the slowest file
# takes about 2) is stopped and fails by name, its other files still run. A hang used to hold
# the whole run until CI's own limit, naming nothing (a file that took 25 s once hung for 25
# minutes). With process isolation, node:test applies the timeout to each file as a whole.
#
# --test-force-exit: a file's process ends once its last test (and `after` hook) has, instead of
# once its last timer has fired. The relayer leaves timers behind when it stops (RPC request
# timeouts of up to 10 s, the 5 s bounds of its stop paths), which kept each file's process alive
# 4-10 s after its tests.
paired=()
alone=()
for dir in test/*/; do
  dir="${dir%/}"
  [ "$dir" = "test/contracts" ] && continue
  [ "$dir" = "test/unit" ] && continue
  [ -d "$dir" ] || continue
  for file in "$dir"/**/*.test.ts; do
    if head -n 1 "$file" | grep -q '^// npm test: alone'; then alone+=("$file"); else paired+=("$file"); fi
  done
done
# Three at a time: with the files' set-up shared (test/support/prepare-run.ts), a file spends most
# of its time waiting, and a third file beside two used the idle CPU (measured on 2 cores).
concurrency="${NODE_TEST_CONCURRENCY:-3}"
file_timeout_ms="${FILE_TIMEOUT_MS:-900000}"
# TEST_TIMINGS_FILE=/tmp/t: seconds per file in /tmp/t.paired.tsv and /tmp/t.alone.tsv.
timings() {
  [ -n "${TEST_TIMINGS_FILE:-}" ] || return 0
  echo --test-reporter=tap --test-reporter-destination=stdout \
    --test-reporter=./test/support/file-timing-reporter.ts \
    "--test-reporter-destination=$TEST_TIMINGS_FILE.$1.tsv"
}

if wait "$prepare_pid"; then
  export TEST_CHAIN_STATE_DIR="$chain_state_dir"
  echo "== Integration files share: $(tail -n 1 "$summary_dir/prepare-run.log")"
else
  echo "== Shared chain and template not prepared (each test file makes its own):"
  tail -n 5 "$summary_dir/prepare-run.log"
fi

# Every Node process from here on (test files, the relayers and `npm start`s they spawn) skips
# Node 22's slow package lookups for relative imports inside node_modules: about 0.6-1 s of CPU
# per process (test/support/node-modules-resolution.mjs says why).
# And a test file's results reach the runner whole under --test-force-exit (its stdout pipe made
# blocking: test/support/report-pipe-blocking.mjs says why).
export NODE_OPTIONS="--import=\"$PWD/test/support/node-modules-resolution.mjs\" --import=\"$PWD/test/support/report-pipe-blocking.mjs\"${NODE_OPTIONS:+ $NODE_OPTIONS}"

: > "$summary_dir/node.log"
if [ "${#paired[@]}" -gt 0 ]; then
  echo "== node:test, $concurrency at a time: ${#paired[@]} files"
  if node --import tsx --test --test-force-exit --test-timeout="$file_timeout_ms" --test-concurrency="$concurrency" $(timings paired) "${paired[@]}" 2>&1 | tee -a "$summary_dir/node.log"; then
    :
  else
    status=1
  fi
fi
if [ "${#alone[@]}" -gt 0 ]; then
  echo "== node:test, one at a time: ${alone[*]}"
  if node --import tsx --test --test-force-exit --test-timeout="$file_timeout_ms" --test-concurrency=1 $(timings alone) "${alone[@]}" 2>&1 | tee -a "$summary_dir/node.log"; then
    :
  else
    status=1
  fi
fi
if [ "${#paired[@]}" -eq 0 ] && [ "${#alone[@]}" -eq 0 ]; then
  echo "== node:test: no test files outside test/contracts"
fi

# The background console build has ended by now (the browser tests waited for its lock).
if wait "$console_pid"; then :; fi
echo "== Console $(grep -E '^console build: ' "$console_log" | sed -E 's/^console //' || echo "build did not finish: $(tail -n 3 "$console_log")")"

# Summary from both runners' own counts (best effort, ANSI colours stripped): Hardhat ends with a
# total over its runners at the start of a line ("135 passing (120 mocha, 15 solidity)"; the
# per-runner lines are indented), node:test prints "# pass N" / "# fail N".
count() {
  { sed -E 's/\x1b\[[0-9;]*m//g' "$1" 2>/dev/null || true; } | { grep -oE "$2" || true; } \
    | { grep -oE '[0-9]+' || true; } | awk '{ s += $1 } END { print s + 0 }'
}
passed=$(( $(count "$summary_dir/unit.log" '^(# |ℹ )pass [0-9]+') + $(count "$summary_dir/hardhat.log" '^[0-9]+ passing') + $(count "$summary_dir/node.log" '^(# |ℹ )pass [0-9]+') ))
failed=$(( $(count "$summary_dir/unit.log" '^(# |ℹ )fail [0-9]+') + $(count "$summary_dir/hardhat.log" '^[0-9]+ failing') + $(count "$summary_dir/node.log" '^(# |ℹ )fail [0-9]+') ))
echo
# Name the failures at the very end, where a truncated log still shows them: TAP's "not ok" lines
# (leaf tests and the suites around them) with their file location, Hardhat's numbered failures.
if [ "$failed" -gt 0 ]; then
  echo "Failed:"
  for log in "$summary_dir/unit.log" "$summary_dir/node.log"; do
    sed -E 's/\x1b\[[0-9;]*m//g' "$log" 2> /dev/null \
      | grep -E '^\s*(not ok [0-9]+ - |location: )' | grep -B1 -A0 'location: ' | grep -v '^--$' \
      | awk '/not ok/ { name = $0; next } /location:/ { if (name != "") print name "   " $0; name = "" }' \
      | sed -E 's/^\s+//; s/\s+location:/  at/' || true
  done
  sed -E 's/\x1b\[[0-9;]*m//g' "$summary_dir/hardhat.log" 2> /dev/null | grep -E '^\s+[0-9]+\) ' | head -20 || true
  # And why each failed test failed (the first lines of its error), where a truncated log shows it.
  echo
  echo "Why:"
  for log in "$summary_dir/unit.log" "$summary_dir/node.log"; do
    sed -E 's/\x1b\[[0-9;]*m//g' "$log" 2> /dev/null | awk '
      /^ *not ok [0-9]+ - / { name = $0; sub(/^ *not ok [0-9]+ - /, "", name); grab = 0; next }
      grab && ($0 ~ "^" pad "[a-zA-Z_]+:" || /^ *\.\.\.$/) { grab = 0 }
      grab && shown < 12 { print "    " substr($0, length(pad) + 3); shown++ }
      /^ *error: / && name != "" && $0 !~ /subtests? failed/ {
        pad = $0; sub(/error:.*/, "", pad)
        print "  " name ":"
        line = $0; sub(/^ *error: (\|-)? */, "", line); if (line != "") print "    " line
        grab = 1; shown = 0; name = ""
      }' || true
  done
fi
echo "$passed passed, $failed failed"
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  echo "(a runner exited non-zero; see its output above)"
fi
exit "$status"
