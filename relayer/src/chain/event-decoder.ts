import {
  isContractEventName,
  type ContractEvent,
  type ContractEventName,
} from "./contract-events.js";
import type { EventFragment } from "ethers";
import { contractsInterface } from "./contracts.js";

/** The parts of a log that carry an event (as in receipts and `eth_getLogs` answers). */
export interface LogLike {
  topics: readonly string[];
  data: string;
}

/**
 * The one event decoder: the indexer, the receipts of the transaction engine and the tests read
 * logs through it. Returns undefined for a log that is not one of the contracts' events (or is
 * malformed), never throws.
 *
 * @returns the event as a member of `ContractEvent` (contract-events.ts): arguments by name in
 *   ABI order, a leading `_` (ERC-4906's `_tokenId`) dropped, and the ABI type of each
 * @example
 * const event = decodeEvent(receipt.logs[0]);
 * if (event?.name === "AssetIssued") event.args.tokenId; // 1n after a mint
 */
export function decodeEvent(log: LogLike): ContractEvent | undefined {
  const fragment =
    log.topics[0] === undefined ? undefined : eventsByTopic().get(log.topics[0].toLowerCase());
  if (fragment === undefined) return undefined;
  if (!isContractEventName(fragment.name)) return undefined;
  let values;
  try {
    values = contractsInterface.decodeEventLog(fragment, log.data, [...log.topics]);
  } catch {
    return undefined;
  }
  const args: Record<string, unknown> = {};
  const types: Record<string, string> = {};
  fragment.inputs.forEach((input, i) => {
    const key = input.name.replace(/^_/, "");
    args[key] = values[i];
    types[key] = input.type;
  });
  // The one unchecked step: ethers decodes by the same ABI TypeChain generated the union from,
  // and the name was checked against the union's list just above.
  return { name: fragment.name, args, types } as ContractEvent;
}

let byTopic: Map<string, EventFragment> | undefined;

/**
 * The contracts' events by topic0, built once. ethers' `parseLog` hashes every event's signature
 * (keccak) on each call until one matches: 32 events made it the relayer's largest CPU cost per
 * mint, in the indexer and in receipts.
 */
function eventsByTopic(): Map<string, EventFragment> {
  if (byTopic === undefined) {
    const map = new Map<string, EventFragment>();
    contractsInterface.forEachEvent((event) => {
      // Several contracts share an event (Transfer): the first, as parseLog would pick.
      const topic = event.topicHash.toLowerCase();
      if (!event.anonymous && !map.has(topic)) map.set(topic, event);
    });
    byTopic = map;
  }
  return byTopic;
}

/**
 * topic0 of one of the contracts' events.
 *
 * @example
 * eventTopic("Transfer") // "0xddf252ad..."
 */
export function eventTopic(name: ContractEventName): string {
  const event = contractsInterface.getEvent(name);
  if (event === null) throw new TypeError(`unknown event ${name}`);
  return event.topicHash;
}
