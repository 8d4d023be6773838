import { createRequire } from "node:module";
import hardhatToolboxMochaEthers from "@nomicfoundation/hardhat-toolbox-mocha-ethers";
import { defineConfig } from "hardhat/config";
import { evmVersionFromEnv } from "./deploy/evm-version.js";

const require = createRequire(import.meta.url);
// Offline: compile with the solcjs build shipped in the `solc` npm package (same version).
const solcjs = require.resolve("solc/soljson.js");

const evmVersion = evmVersionFromEnv();

const compiler = {
  version: "0.8.28",
  path: solcjs,
  settings: {
    // High runs: favours runtime gas (AssetToken.mint is an acceptance figure) over deploy size.
    optimizer: { enabled: true, runs: 1_000_000 },
    // Berlin unless EVM_VERSION says otherwise: bytecode without PUSH0, MCOPY or transient
    // storage deploys on older private chains too (docs/deploying.md "Running on your own chain").
    evmVersion,
  },
};

export default defineConfig({
  plugins: [hardhatToolboxMochaEthers],
  solidity: {
    profiles: {
      default: compiler,
      production: compiler,
    },
  },
  paths: {
    tests: {
      mocha: "test/contracts",
      solidity: "test/contracts",
    },
  },
  test: {
    solidity: {
      fuzz: { runs: 256 },
      invariant: { runs: 128, depth: 64, failOnRevert: false },
    },
  },
  typechain: {
    outDir: "typechain-types",
  },
  networks: {
    localhost: {
      type: "http",
      chainType: "l1",
      url: process.env.RPC_URL ?? "http://127.0.0.1:8545",
    },
  },
});
