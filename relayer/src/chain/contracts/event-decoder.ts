import {
  isContractEventName,
  type ContractEvent,
  type ContractEventName,
} from "./contract-events.js";
import { AbiCoder, type ParamType } from "ethers";
import { checksumAddress } from "../../domain/address.js";
import { contractsInterface } from "./bindings.js";

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
 * Every event of the contracts has static indexed arguments, so each is one 32-byte topic, read
 * straight from its word; the data part is read word by word too when it holds only static types,
 * else by ethers' ABI coder. The result equals ethers' `decodeEventLog` (a test compares them for
 * every event with random values): ethers' own path cost about 0.25 ms per log (it hashes the
 * event's signature on every call, builds coders and `Result` proxies), the largest CPU cost per
 * mint in the engine's receipts.
 *
 * @returns the event as a member of `ContractEvent` (contract-events.ts): arguments by name in
 *   ABI order, a leading `_` (ERC-4906's `_tokenId`) dropped, and the ABI type of each;
 *   addresses checksummed (EIP-55), integers as bigint
 * @example
 * const event = decodeEvent(receipt.logs[0]);
 * if (event?.name === "AssetIssued") event.args.tokenId; // 1n after a mint
 */
export function decodeEvent(log: LogLike): ContractEvent | undefined {
  const plan =
    log.topics[0] === undefined ? undefined : plansByTopic().get(log.topics[0].toLowerCase());
  if (plan === undefined) return undefined;
  if (log.topics.length < 1 + plan.indexedCount || !HEX_DATA.test(log.data)) return undefined;
  let dataValues: readonly unknown[] | undefined;
  if (plan.dataCoderTypes !== undefined) {
    try {
      dataValues = AbiCoder.defaultAbiCoder().decode(plan.dataCoderTypes, log.data, true);
    } catch {
      return undefined;
    }
  } else if (log.data.length < 2 + 64 * plan.dataCount) return undefined;
  const args: Record<string, unknown> = {};
  let topic = 1;
  let word = 0;
  for (const input of plan.inputs) {
    let value: unknown;
    if (input.indexed) value = wordValue(input, (log.topics[topic++] ?? "").slice(2));
    else if (dataValues !== undefined) value = dataValues[word++];
    else {
      const at = 2 + 64 * word++;
      value = wordValue(input, log.data.slice(at, at + 64));
    }
    if (value === undefined) return undefined;
    args[input.key] = value;
  }
  // The one unchecked step: the arguments follow the same ABI TypeChain generated the union
  // from, and the name was checked against the union's list when the plan was made.
  return { name: plan.name, args, types: plan.types } as ContractEvent;
}

/** `0x` and whole bytes, as ethers demands of a log's data. */
const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

/** How to read one argument of an event. */
interface InputPlan {
  key: string;
  indexed: boolean;
  /** `address`, `bool`, `bytes` (fixed, `size` bytes), `uint` or `int` (`size` bits). */
  kind: "address" | "bool" | "bytes" | "uint" | "int" | "other";
  size: number;
}

/** How to read one event: its arguments in ABI order. */
interface EventPlan {
  name: ContractEventName;
  inputs: InputPlan[];
  types: Record<string, string>;
  indexedCount: number;
  /** Words of the data part, when it is read word by word. */
  dataCount: number;
  /** The data part's types, when one of them is dynamic: ethers' coder reads it. */
  dataCoderTypes: ParamType[] | undefined;
}

/**
 * One static argument from its 32-byte word (64 hex digits, no `0x`), as ethers' coders read it:
 * an address checksummed (undefined when the word's upper 12 bytes are not zero, where ethers
 * throws), `bool` any non-zero word, fixed bytes the leading `size` bytes, integers masked to
 * their width (two's complement for `int`).
 */
function wordValue(input: InputPlan, hex: string): unknown {
  if (hex.length !== 64 || !HEX_WORD.test(hex)) return undefined;
  switch (input.kind) {
    case "address":
      return hex.startsWith("000000000000000000000000")
        ? checksumAddress(`0x${hex.slice(24).toLowerCase()}`)
        : undefined;
    case "bool":
      return /[1-9a-fA-F]/.test(hex);
    case "bytes":
      return `0x${hex.slice(0, input.size * 2).toLowerCase()}`;
    case "uint":
      return BigInt.asUintN(input.size, BigInt(`0x${hex}`));
    case "int":
      return BigInt.asIntN(input.size, BigInt(`0x${hex}`));
    case "other":
      return undefined;
  }
}

const HEX_WORD = /^[0-9a-fA-F]{64}$/;

function inputPlan(param: ParamType): InputPlan {
  const key = param.name.replace(/^_/, "");
  const base = { key, indexed: param.indexed === true };
  const type = param.type;
  if (type === "address") return { ...base, kind: "address", size: 20 };
  if (type === "bool") return { ...base, kind: "bool", size: 1 };
  const fixed = /^bytes([0-9]+)$/.exec(type);
  if (fixed !== null) return { ...base, kind: "bytes", size: Number(fixed[1]) };
  const integer = /^(u?)int([0-9]*)$/.exec(type);
  if (integer !== null)
    return {
      ...base,
      kind: integer[1] === "u" ? "uint" : "int",
      size: integer[2] === "" ? 256 : Number(integer[2]),
    };
  return { ...base, kind: "other", size: 0 };
}

let byTopic: Map<string, EventPlan> | undefined;

/**
 * The contracts' events by topic0, with how to read each, built once. ethers' `parseLog` hashes
 * every event's signature (keccak) on each call until one matches.
 */
function plansByTopic(): Map<string, EventPlan> {
  if (byTopic === undefined) {
    const map = new Map<string, EventPlan>();
    contractsInterface.forEachEvent((event) => {
      // Several contracts share an event (Transfer): the first, as parseLog would pick.
      const topic = event.topicHash.toLowerCase();
      if (event.anonymous || map.has(topic) || !isContractEventName(event.name)) return;
      const inputs = event.inputs.map(inputPlan);
      // An indexed argument of a dynamic type would be a hash, not a value: none exists, and
      // one added to a contract must be decoded on purpose, not guessed.
      if (inputs.some((input) => input.indexed && input.kind === "other"))
        throw new TypeError(`event ${event.name} has an indexed argument of a dynamic type`);
      const data = event.inputs.filter((param) => param.indexed !== true);
      const types: Record<string, string> = {};
      event.inputs.forEach((param, i) => (types[inputs[i]!.key] = param.type));
      map.set(topic, {
        name: event.name,
        inputs,
        types,
        indexedCount: inputs.length - data.length,
        dataCount: data.length,
        dataCoderTypes: inputs.some((input) => !input.indexed && input.kind === "other")
          ? data
          : undefined,
      });
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
