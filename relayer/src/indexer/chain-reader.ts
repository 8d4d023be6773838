import type { JsonRpcProvider } from "ethers";
import { RpcUnavailableError } from "../errors.js";
import type { RawLog } from "./decode-log.js";
import type { BlockHeader } from "./stored-log.js";

interface RawBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
}

const toHex = (n: number) => `0x${n.toString(16)}`;

/**
 * The few JSON-RPC calls the indexer needs, sent raw (no ethers object model: cheaper, and
 * hashes/quantities stay exactly as the node gave them). Calls in the same tick are batched by
 * the provider.
 */
export class ChainReader {
  constructor(
    private readonly provider: JsonRpcProvider,
    private readonly addresses: string[],
    private readonly topics: string[],
  ) {}

  async #send<T>(method: string, params: unknown[]): Promise<T> {
    try {
      return (await this.provider.send(method, params)) as T;
    } catch (cause) {
      throw new RpcUnavailableError({ cause, details: { method } });
    }
  }

  /** Latest block number. */
  async head(): Promise<number> {
    return Number(BigInt(await this.#send<string>("eth_blockNumber", [])));
  }

  /** Header of block `n`, or undefined when the node does not have it (yet). */
  async header(n: number): Promise<BlockHeader | undefined> {
    const raw = await this.#send<RawBlock | null>("eth_getBlockByNumber", [toHex(n), false]);
    if (raw === null) return undefined;
    return {
      number: Number(BigInt(raw.number)),
      hash: raw.hash.toLowerCase(),
      parentHash: raw.parentHash.toLowerCase(),
      timestamp: Number(BigInt(raw.timestamp)),
    };
  }

  /** Logs of the indexed contracts in [from, to]: one eth_getLogs for all addresses. */
  async logsInRange(from: number, to: number): Promise<RawLog[]> {
    return this.#send<RawLog[]>("eth_getLogs", [
      {
        fromBlock: toHex(from),
        toBlock: toHex(to),
        address: this.addresses,
        topics: [this.topics],
      },
    ]);
  }

  /** Logs of the indexed contracts in exactly the block with this hash (reorg-safe). */
  async logsAtHash(blockHash: string): Promise<RawLog[]> {
    return this.#send<RawLog[]>("eth_getLogs", [
      { blockHash, address: this.addresses, topics: [this.topics] },
    ]);
  }
}
