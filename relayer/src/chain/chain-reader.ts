import { AbiCoder, getAddress, ZeroAddress } from "ethers";
import type { AssetToken } from "../../../typechain-types/AssetToken.js";
import type { AssetTypeRegistry } from "../../../typechain-types/AssetTypeRegistry.js";
import type { Marketplace } from "../../../typechain-types/Marketplace.js";
import type { ContractAddresses } from "./contracts/bindings.js";
import { TransactionFailedError } from "../errors.js";
import {
  assetTokenInterface,
  marketplaceInterface,
  registryInterface,
} from "./contracts/bindings.js";
import { revertReason } from "./contracts/revert-reasons.js";
import type { RpcClient } from "./rpc/rpc-client.js";
import { classifyRpcFailure, isRevert, RpcResponseError } from "./rpc/rpc-errors.js";

/** What a view function of a TypeChain contract resolves to (its generated output type). */
type ViewResult<
  C extends Record<M, { staticCall: (...args: never) => Promise<unknown> }>,
  M extends keyof C,
> = Awaited<ReturnType<C[M]["staticCall"]>>;

/** A listing as stored by the marketplace. */
export interface ListingView {
  seller: string;
  listedAt: number;
  expiresAt: number;
  state: number; // IMarketplace.ListingState
  buyer: string;
  tokenId: bigint;
  price: bigint;
}

/** A block header as the indexer needs it. */
export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
  /** Seconds. */
  timestamp: number;
}

/** A log as eth_getLogs returns it (hex quantities). */
export interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

interface RawBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
}

const toHex = (n: number) => `0x${n.toString(16)}`;

/**
 * Every read the relayer makes of the chain, over the one `RpcClient` (one request each, no
 * provider machinery): the contract views the write services validate with (encoded through the
 * TypeChain interfaces, results typed by the generated contract types), gas estimation that turns
 * reverts into `TransactionFailedError` with the API's reason string, and the blocks and logs the
 * indexer follows (hashes and quantities exactly as the node gave them).
 */
export class ChainReader {
  readonly #rpc: RpcClient;
  readonly #contracts: ContractAddresses;
  readonly #logAddresses: string[];
  readonly #logTopics: string[] | undefined;

  /**
   * @param options.logTopics topic0 values `logsInRange`/`logsAtHash` keep (default: every log
   *   of the three contracts)
   */
  constructor(
    rpc: RpcClient,
    contracts: ContractAddresses,
    options: { logTopics?: readonly string[] } = {},
  ) {
    this.#rpc = rpc;
    this.#contracts = contracts;
    this.#logAddresses = [
      contracts.assetTypeRegistry,
      contracts.assetToken,
      contracts.marketplace,
    ].map((a) => a.toLowerCase());
    this.#logTopics = options.logTopics === undefined ? undefined : [...options.logTopics];
  }

  async isAssetTypeRegistered(name: string): Promise<boolean> {
    const out = await this.#call(
      this.#contracts.assetTypeRegistry,
      registryInterface.encodeFunctionData("isRegistered", [name]),
    );
    return registryInterface.decodeFunctionResult("isRegistered", out)[0] as ViewResult<
      AssetTypeRegistry,
      "isRegistered"
    >;
  }

  async registeredTypes(): Promise<string[]> {
    const out = await this.#call(
      this.#contracts.assetTypeRegistry,
      registryInterface.encodeFunctionData("allTypes"),
    );
    return [
      ...(registryInterface.decodeFunctionResult("allTypes", out)[0] as ViewResult<
        AssetTypeRegistry,
        "allTypes"
      >),
    ];
  }

  /** Owner of a token, or undefined when it does not exist. */
  async ownerOf(tokenId: bigint): Promise<string | undefined> {
    try {
      const out = await this.#call(
        this.#contracts.assetToken,
        assetTokenInterface.encodeFunctionData("ownerOf", [tokenId]),
      );
      return getAddress(
        assetTokenInterface.decodeFunctionResult("ownerOf", out)[0] as ViewResult<
          AssetToken,
          "ownerOf"
        >,
      );
    } catch (error) {
      if (isRevert(error)) return undefined;
      throw error;
    }
  }

  /** A listing and its effective state (an active listing past its expiry reads as Expired). */
  async listing(
    listingId: bigint,
  ): Promise<(ListingView & { effectiveState: number }) | undefined> {
    const [raw, state] = await Promise.all([
      this.#call(
        this.#contracts.marketplace,
        marketplaceInterface.encodeFunctionData("getListing", [listingId]),
      ),
      this.#call(
        this.#contracts.marketplace,
        marketplaceInterface.encodeFunctionData("stateOf", [listingId]),
      ),
    ]);
    const l = marketplaceInterface.decodeFunctionResult("getListing", raw)[0] as ViewResult<
      Marketplace,
      "getListing"
    >;
    if (l.seller === ZeroAddress) return undefined;
    return {
      seller: getAddress(l.seller),
      listedAt: Number(l.listedAt),
      expiresAt: Number(l.expiresAt),
      state: Number(l.state),
      buyer: l.buyer,
      tokenId: l.tokenId,
      price: l.price,
      effectiveState: Number(
        marketplaceInterface.decodeFunctionResult("stateOf", state)[0] as ViewResult<
          Marketplace,
          "stateOf"
        >,
      ),
    };
  }

  /** Stake a live token holds, in wei. */
  async stakeOf(tokenId: bigint): Promise<bigint> {
    const out = await this.#call(
      this.#contracts.assetToken,
      assetTokenInterface.encodeFunctionData("stakeOf", [tokenId]),
    );
    return assetTokenInterface.decodeFunctionResult("stakeOf", out)[0] as bigint;
  }

  /** Whether a live token has a password (a non-zero stored hash). */
  async hasPassword(tokenId: bigint): Promise<boolean> {
    const out = await this.#call(
      this.#contracts.assetToken,
      assetTokenInterface.encodeFunctionData("passwordHashOf", [tokenId]),
    );
    return !/^0x0*$/.test(
      assetTokenInterface.decodeFunctionResult("passwordHashOf", out)[0] as string,
    );
  }

  /** The contract's own check of a password against a live token's stored keccak256 hash. */
  async checkPassword(tokenId: bigint, password: string): Promise<boolean> {
    const out = await this.#call(
      this.#contracts.assetToken,
      assetTokenInterface.encodeFunctionData("checkPassword", [tokenId, password]),
    );
    return assetTokenInterface.decodeFunctionResult("checkPassword", out)[0] as boolean;
  }

  /** The listing stored as active (expired or not) that holds `tokenId` in escrow, or 0n. */
  async activeListingOf(tokenId: bigint): Promise<bigint> {
    const out = await this.#call(
      this.#contracts.marketplace,
      marketplaceInterface.encodeFunctionData("activeListingOf", [tokenId]),
    );
    return marketplaceInterface.decodeFunctionResult("activeListingOf", out)[0] as bigint;
  }

  /** The asset type name of a live token. */
  async assetTypeOf(tokenId: bigint): Promise<string> {
    const out = await this.#call(
      this.#contracts.assetToken,
      assetTokenInterface.encodeFunctionData("assetTypeOf", [tokenId]),
    );
    return assetTokenInterface.decodeFunctionResult("assetTypeOf", out)[0] as ViewResult<
      AssetToken,
      "assetTypeOf"
    >;
  }

  /** Whether AssetToken's rules (pause, freeze, restricted types) let `tokenId` go from `from` to `to`. */
  async canTransfer(from: string, to: string, tokenId: bigint): Promise<boolean> {
    const data = assetTokenInterface.encodeFunctionData("canTransfer", [from, to, tokenId]);
    return this.#tokenBool("canTransfer", await this.#call(this.#contracts.assetToken, data));
  }

  /** Whether transfers and the market are paused. */
  async paused(): Promise<boolean> {
    const data = assetTokenInterface.encodeFunctionData("paused");
    return this.#tokenBool("paused", await this.#call(this.#contracts.assetToken, data));
  }

  /** Whether a token is frozen (false for a missing one). */
  async isFrozen(tokenId: bigint): Promise<boolean> {
    const data = assetTokenInterface.encodeFunctionData("getFrozenTokens", [ZeroAddress, tokenId]);
    return this.#tokenBool("getFrozenTokens", await this.#call(this.#contracts.assetToken, data));
  }

  /** Whether `account` is on the allowlist of restricted asset types. */
  async isAllowed(account: string): Promise<boolean> {
    const data = assetTokenInterface.encodeFunctionData("isAllowed", [account]);
    return this.#tokenBool("isAllowed", await this.#call(this.#contracts.assetToken, data));
  }

  /** Whether the registered type `name` is restricted (false for an unknown one). */
  async isTypeRestricted(name: string): Promise<boolean> {
    const data = assetTokenInterface.encodeFunctionData("isTypeRestricted", [name]);
    return this.#tokenBool("isTypeRestricted", await this.#call(this.#contracts.assetToken, data));
  }

  async hasRegistrarRole(account: string): Promise<boolean> {
    const roleOut = await this.#call(
      this.#contracts.assetTypeRegistry,
      registryInterface.encodeFunctionData("REGISTRAR_ROLE"),
    );
    const role = registryInterface.decodeFunctionResult("REGISTRAR_ROLE", roleOut)[0] as ViewResult<
      AssetTypeRegistry,
      "REGISTRAR_ROLE"
    >;
    const out = await this.#call(
      this.#contracts.assetTypeRegistry,
      registryInterface.encodeFunctionData("hasRole", [role, account]),
    );
    return registryInterface.decodeFunctionResult("hasRole", out)[0] as ViewResult<
      AssetTypeRegistry,
      "hasRole"
    >;
  }

  /** Native balance in wei. */
  async balanceOf(address: string): Promise<bigint> {
    return BigInt(await this.#rpc.call<string>("eth_getBalance", [address, "latest"]));
  }

  /**
   * `eth_estimateGas`. A revert becomes `TransactionFailedError(<API reason>)` (nothing was sent,
   * no nonce used); `insufficient funds` is returned as `undefined` so the caller can name the
   * shortfall; an unreachable node is `RpcUnavailableError`.
   */
  async estimateGas(tx: {
    from: string;
    to: string;
    data: string;
    value: bigint;
  }): Promise<bigint | undefined> {
    try {
      return BigInt(
        await this.#rpc.call<string>("eth_estimateGas", [
          { from: tx.from, to: tx.to, data: tx.data, value: "0x" + tx.value.toString(16) },
        ]),
      );
    } catch (error) {
      const kind = classifyRpcFailure(error);
      if (kind === "insufficient-funds") return undefined;
      if (kind === "revert" && error instanceof RpcResponseError) {
        throw new TransactionFailedError(revertReason(error.data), { cause: error });
      }
      throw error;
    }
  }

  /** Latest block number. */
  async head(): Promise<number> {
    return Number(BigInt(await this.#rpc.call<string>("eth_blockNumber", [])));
  }

  /** Header of block `n`, or undefined when the node does not have it (yet). */
  async header(n: number): Promise<BlockHeader | undefined> {
    const raw = await this.#rpc.call<RawBlock | null>("eth_getBlockByNumber", [toHex(n), false]);
    if (raw === null) return undefined;
    return {
      number: Number(BigInt(raw.number)),
      hash: raw.hash.toLowerCase(),
      parentHash: raw.parentHash.toLowerCase(),
      timestamp: Number(BigInt(raw.timestamp)),
    };
  }

  /** Logs of the three contracts in [from, to]: one eth_getLogs for all addresses. */
  async logsInRange(from: number, to: number): Promise<RawLog[]> {
    return this.#rpc.call<RawLog[]>("eth_getLogs", [
      { fromBlock: toHex(from), toBlock: toHex(to), ...this.#logFilter() },
    ]);
  }

  /** Logs of the three contracts in exactly the block with this hash (reorg-safe). */
  async logsAtHash(blockHash: string): Promise<RawLog[]> {
    return this.#rpc.call<RawLog[]>("eth_getLogs", [{ blockHash, ...this.#logFilter() }]);
  }

  #logFilter(): { address: string[]; topics?: string[][] } {
    return this.#logTopics === undefined
      ? { address: this.#logAddresses }
      : { address: this.#logAddresses, topics: [this.#logTopics] };
  }

  /** Decodes the result of one of AssetToken's boolean views, checked by name. */
  #tokenBool(
    name: "canTransfer" | "paused" | "getFrozenTokens" | "isAllowed" | "isTypeRestricted",
    out: string,
  ): boolean {
    const [value] = assetTokenInterface.getFunction(name).outputs;
    if (value?.type !== "bool") throw new TypeError(`AssetToken.${name} does not return a bool`);
    return AbiCoder.defaultAbiCoder().decode(["bool"], out)[0] as boolean;
  }

  async #call(to: string, data: string): Promise<string> {
    return this.#rpc.call<string>("eth_call", [{ to, data }, "latest"]);
  }
}
