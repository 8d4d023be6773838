import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkNode, evmVersionFor } from "../../deploy/node-check.js";
import {
  confirmationsAdvice,
  consensusOf,
  evmLevelOf,
  type NodeDialect,
} from "../../relayer/src/chain/rpc/node-dialect.js";

/** A node as anvil --hardfork london answers the probe (then adjusted per case). */
function londonNode(overrides: Partial<NodeDialect["evm"]> = {}): NodeDialect {
  const evm = {
    push0: "no" as const,
    mcopy: "no" as const,
    transientStorage: "no" as const,
    baseFee: true,
    ...overrides,
  };
  return {
    chainId: 1236,
    client: "anvil/v1.7.1",
    head: 1,
    evm: { ...evm, level: evmLevelOf(evm) },
    fees: {
      baseFeePerGas: 10n ** 9n,
      gasPrice: 2n * 10n ** 9n,
      feeHistory: "yes",
      maxPriorityFeePerGas: "yes",
    },
    batches: { support: "yes", cap: undefined, tried: 100 },
    blockReceipts: "yes",
    finality: {
      finalizedTag: "yes",
      consensus: "dev",
      consensusFrom: "client",
      instantFinality: true,
    },
    notes: [],
  };
}

describe("checkNode: can the node run what would be deployed", () => {
  it("a Berlin build runs on a London node: no problem", () => {
    assert.deepEqual(checkNode(londonNode(), { node: "n:1", evmVersion: "berlin" }), {
      problems: [],
      warnings: [],
    });
  });
  it("a Shanghai build on a node without PUSH0 is refused, naming PUSH0, the build and the setting", () => {
    const { problems } = checkNode(londonNode(), { node: "10.0.0.5:8545", evmVersion: "shanghai" });
    assert.deepEqual(problems, [
      "the node at 10.0.0.5:8545 does not support PUSH0 (pre-Shanghai); the contracts were compiled for shanghai; rebuild with EVM_VERSION=london",
    ]);
  });
  it("a Cancun build on a Shanghai node names MCOPY and transient storage", () => {
    const node = londonNode({ push0: "yes" });
    const { problems } = checkNode(node, { node: "n:1", evmVersion: "cancun" });
    assert.equal(problems.length, 1);
    assert.match(
      problems[0]!,
      /does not support MCOPY, transient storage \(TLOAD\/TSTORE\) \(pre-Cancun\)/,
    );
    assert.match(problems[0]!, /rebuild with EVM_VERSION=shanghai$/);
  });
  it("a London build on a node without a base fee is refused with EVM_VERSION=berlin", () => {
    const { problems } = checkNode(londonNode({ baseFee: false }), {
      node: "n:1",
      evmVersion: "london",
    });
    assert.deepEqual(problems, [
      "the node at n:1 is pre-London (its blocks carry no base fee); the contracts were compiled for london; rebuild with EVM_VERSION=berlin",
    ]);
  });
  it("an opcode the probe could not test is a warning, not a refusal", () => {
    const { problems, warnings } = checkNode(londonNode({ push0: "unknown" }), {
      node: "n:1",
      evmVersion: "shanghai",
    });
    assert.deepEqual(problems, []);
    assert.match(warnings[0]!, /could not tell whether the node at n:1 supports PUSH0/);
  });
  it("a chain id other than the expected one is a problem naming the setting", () => {
    const { problems } = checkNode(londonNode(), {
      node: "n:1",
      evmVersion: "berlin",
      expectedChainId: 1,
    });
    assert.match(problems[0]!, /reports chain id 1236, not 1; .*EXPECTED_CHAIN_ID/);
  });
});

describe("node-dialect's readings", () => {
  it("evmLevelOf: Cancun needs MCOPY and transient storage, Shanghai PUSH0, London a base fee; untested PUSH0 is unknown", () => {
    const level = (push0: "yes" | "no" | "unknown", cancun: "yes" | "no", baseFee: boolean) =>
      evmLevelOf({ push0, mcopy: cancun, transientStorage: cancun, baseFee });
    assert.equal(level("yes", "yes", true), "cancun");
    assert.equal(level("yes", "no", true), "shanghai");
    assert.equal(level("no", "no", true), "london");
    assert.equal(level("no", "no", false), "berlin");
    assert.equal(level("unknown", "no", true), "unknown");
    assert.equal(evmVersionFor("unknown"), "berlin");
  });
  it("consensusOf reads dev nodes, IBFT/QBFT, Clique, PoS and PoW, and says when it cannot tell", () => {
    const block = {
      number: "0x10",
      difficulty: "0x0",
      extraData: "0x",
      mixHash: "0x" + "00".repeat(32),
    };
    const none = { clique: "no", istanbul: "no" } as const;
    const read = (input: Partial<Parameters<typeof consensusOf>[0]>) =>
      consensusOf({ client: "Geth/v1.13.15", block, methods: none, finalizedTag: "no", ...input })
        .consensus;
    assert.equal(read({ client: "anvil/v1.7.1" }), "dev");
    assert.equal(read({ client: "HardhatNetwork/2.22.0/@nomicfoundation/edr/0.12" }), "dev");
    assert.equal(
      read({
        block: {
          ...block,
          difficulty: "0x1",
          mixHash: "0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365",
        },
      }),
      "ibft/qbft",
    );
    assert.equal(read({ methods: { clique: "no", istanbul: "yes" } }), "ibft/qbft");
    assert.equal(read({ methods: { clique: "yes", istanbul: "no" } }), "clique");
    // Clique's extraData: 32 bytes of vanity, one signer (20), 65 bytes of seal.
    const cliqueExtra = "0x" + "00".repeat(32) + "11".repeat(20) + "22".repeat(65);
    assert.equal(
      read({ block: { ...block, difficulty: "0x2", extraData: cliqueExtra } }),
      "clique",
    );
    assert.equal(read({ finalizedTag: "yes" }), "pos");
    assert.equal(read({ block: { ...block, difficulty: "0x2f5a1c3" } }), "pow");
    assert.equal(read({}), "unknown");
  });
  it("confirmationsAdvice: several blocks for Clique and PoW, 0 for IBFT/QBFT", () => {
    assert.match(confirmationsAdvice("clique"), /^set CONFIRMATIONS to several blocks/);
    assert.match(confirmationsAdvice("pow"), /^set CONFIRMATIONS to several blocks/);
    assert.match(confirmationsAdvice("ibft/qbft"), /^CONFIRMATIONS=0/);
    assert.match(confirmationsAdvice("unknown"), /could not tell/);
  });
});
