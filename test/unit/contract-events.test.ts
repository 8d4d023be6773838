import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ZeroAddress, ZeroHash, type EventFragment, type Interface } from "ethers";
import { CONTRACT_EVENT_NAMES } from "../../relayer/src/chain/contract-events.js";
import {
  assetTokenInterface,
  marketplaceInterface,
  registryInterface,
} from "../../relayer/src/chain/contracts.js";
import { decodeEvent } from "../../relayer/src/chain/event-decoder.js";

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

describe("contract events", () => {
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
