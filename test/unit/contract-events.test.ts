import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { randomBytes } from "node:crypto";
import {
  getAddress,
  hexlify,
  toBeHex,
  Wallet,
  ZeroAddress,
  ZeroHash,
  type EventFragment,
  type Interface,
} from "ethers";
import { CONTRACT_EVENT_NAMES } from "../../relayer/src/chain/contracts/contract-events.js";
import {
  assetTokenInterface,
  contractsInterface,
  marketplaceInterface,
  registryInterface,
} from "../../relayer/src/chain/contracts/bindings.js";
import { decodeEvent } from "../../relayer/src/chain/contracts/event-decoder.js";

const INTERFACES: readonly Interface[] = [
  assetTokenInterface,
  marketplaceInterface,
  registryInterface,
];

/** The event fragments of one compiled ABI. */
const eventsOf = (iface: Interface) =>
  iface.fragments.filter((f): f is EventFragment => f.type === "event");

function sampleValue(type: string): unknown {
  if (type === "address") return ZeroAddress;
  if (type === "bytes32") return ZeroHash;
  if (type === "string") return "";
  if (type === "bool") return false;
  if (/^u?int\d*$/.test(type)) return 0n;
  throw new TypeError(`no sample for ${type}`);
}

/** A random value of `type`, edges included (zero, the type's maximum, high bits set). */
function randomValue(type: string): unknown {
  const edge = Math.random() < 0.2;
  if (type === "address") return edge ? ZeroAddress : getAddress(hexlify(randomBytes(20)));
  if (type === "bytes32") return hexlify(randomBytes(32));
  if (type === "string") return edge ? "" : `reason ${randomBytes(12).toString("base64")} é`;
  if (type === "bool") return Math.random() < 0.5;
  const integer = /^(u?)int(\d*)$/.exec(type);
  if (integer !== null) {
    const bits = integer[2] === "" ? 256 : Number(integer[2]);
    const top = integer[1] === "u" ? 1n << BigInt(bits) : 1n << BigInt(bits - 1);
    const magnitude = edge ? top - 1n : BigInt(hexlify(randomBytes(bits / 8))) % top;
    return integer[1] === "u" || Math.random() < 0.5 ? magnitude : -magnitude - (edge ? 1n : 0n);
  }
  throw new TypeError(`no random value for ${type}`);
}

/**
 * ethers' own decoding of a log, shaped as decodeEvent answers (the reference); undefined where
 * ethers throws, at once or when an argument is read (its `Result` defers some errors).
 */
function ethersDecode(log: { topics: readonly string[]; data: string }) {
  try {
    const parsed = contractsInterface.parseLog({ topics: [...log.topics], data: log.data });
    if (parsed === null) return undefined;
    const args: Record<string, unknown> = {};
    parsed.fragment.inputs.forEach((input, i) => {
      args[input.name.replace(/^_/, "")] = parsed.args[i] as unknown;
    });
    return { name: parsed.name, args };
  } catch {
    return undefined;
  }
}

describe("contract events", () => {
  it("decodeEvent equals ethers' decoding for every event of the three ABIs, 30 random logs each", () => {
    for (const iface of INTERFACES) {
      for (const fragment of eventsOf(iface)) {
        for (let i = 0; i < 30; i++) {
          const log = iface.encodeEventLog(
            fragment,
            fragment.inputs.map((input) => randomValue(input.type)),
          );
          const ours = decodeEvent(log);
          assert.deepEqual(
            ours === undefined ? undefined : { name: ours.name, args: ours.args },
            ethersDecode(log),
            fragment.name,
          );
        }
      }
    }
  });

  it("decodeEvent answers undefined wherever ethers cannot decode: short data, a dirty address word, a missing topic, odd hex", () => {
    const issued = assetTokenInterface.getEvent("AssetIssued");
    assert.ok(issued !== null);
    const good = assetTokenInterface.encodeEventLog(issued, [
      5n,
      Wallet.createRandom().address,
      ZeroHash,
      10n ** 17n,
      ZeroHash,
      1,
      0x70,
      0x12,
      ZeroHash,
      Wallet.createRandom().address,
    ]);
    const dirtyOwner = `0x${"ff".repeat(12)}${good.topics[2]!.slice(26)}`;
    const cases = [
      { topics: good.topics, data: good.data.slice(0, -64) },
      { topics: [good.topics[0]!, good.topics[1]!, dirtyOwner, good.topics[3]!], data: good.data },
      { topics: good.topics.slice(0, 3), data: good.data },
      { topics: good.topics, data: `${good.data}0` },
      { topics: [good.topics[0]!, toBeHex(5n), good.topics[2]!, good.topics[3]!], data: good.data },
    ];
    for (const [i, log] of cases.entries()) {
      assert.equal(ethersDecode(log), undefined, `ethers decodes case ${i}`);
      assert.equal(decodeEvent(log), undefined, `case ${i}`);
    }
  });

  it("the ContractEvent union has one member per event of the three ABIs (a new event fails here)", () => {
    const fromAbis = [...new Set(INTERFACES.flatMap(eventsOf).map((e) => e.name))].sort();
    assert.deepEqual([...CONTRACT_EVENT_NAMES].sort(), fromAbis);
  });

  it("decodeEvent answers each ABI event with its union name and its arguments by name", () => {
    for (const iface of INTERFACES) {
      for (const fragment of eventsOf(iface)) {
        const values = fragment.inputs.map((input) => sampleValue(input.type));
        const event = decodeEvent(iface.encodeEventLog(fragment, values));
        assert.ok(event !== undefined, fragment.name);
        assert.equal(event.name, fragment.name);
        const keys = fragment.inputs.map((input) => input.name.replace(/^_/, ""));
        assert.deepEqual(Object.keys(event.args), keys, fragment.name);
        assert.deepEqual(Object.keys(event.types), keys, fragment.name);
      }
    }
  });

  it("ERC-4906's _tokenId is read as tokenId", () => {
    const event = decodeEvent(assetTokenInterface.encodeEventLog("MetadataUpdate", [7n]));
    assert.ok(event?.name === "MetadataUpdate");
    assert.equal(event.args.tokenId, 7n);
  });
});
