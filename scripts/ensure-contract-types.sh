#!/usr/bin/env bash
# Generates artifacts/ and typechain-types/ (`hardhat build`) when typechain-types/ is missing or
# older than a contract source or hardhat.config.ts. The relayer, the tests and the benches import
# the generated TypeChain factories, so every entry point that runs them through tsx calls this
# first (npm test, test:unit, bench, soak; `npm start` checks the same in relayer/src/main.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

stamp=typechain-types/index.ts
if [ -f "$stamp" ] && [ -z "$(find contracts hardhat.config.ts -newer "$stamp" \( -name '*.sol' -o -name '*.ts' \) -print -quit)" ]; then
  exit 0
fi
echo "== Compiling contracts and generating typechain-types/ (hardhat build)"
hardhat build --quiet
touch "$stamp"
