import { contractsInterface, type ContractEventName } from "./contracts.js";

/** The parts of a log that carry an event (as in receipts and `eth_getLogs` answers). */
export interface LogLike {
  topics: readonly string[];
  data: string;
}

/** One decoded event of the project's contracts. */
export interface DecodedEvent {
  name: ContractEventName;
  /** Arguments by name, in ABI order; a leading `_` (ERC-4906's `_tokenId`) is dropped. */
  args: Record<string, unknown>;
  /** The ABI type of each argument (`uint256`, `address`, `string`...), same keys. */
  types: Record<string, string>;
}

/**
 * The one event decoder: the indexer, the receipts of the transaction engine and the tests read
 * logs through it. Returns undefined for a log that is not one of the contracts' events (or is
 * malformed), never throws.
 *
 * @example
 * decodeEvent(receipt.logs[0])?.args.tokenId // 1n after a mint
 */
export function decodeEvent(log: LogLike): DecodedEvent | undefined {
  let parsed;
  try {
    parsed = contractsInterface.parseLog({ topics: [...log.topics], data: log.data });
  } catch {
    return undefined;
  }
  if (parsed === null) return undefined;
  const args: Record<string, unknown> = {};
  const types: Record<string, string> = {};
  parsed.fragment.inputs.forEach((input, i) => {
    const key = input.name.replace(/^_/, "");
    args[key] = parsed.args[i];
    types[key] = input.type;
  });
  return { name: parsed.name as ContractEventName, args, types };
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
