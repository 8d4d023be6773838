import { getAddress, ZeroAddress } from "ethers";
import type { ContractAddresses } from "../context.js";
import { assetTokenInterface, marketplaceInterface, registryInterface } from "./abis.js";
import type { RpcClient } from "./rpc-client.js";
import { classifyRpcFailure, RpcResponseError } from "./rpc-errors.js";
import { revertReason } from "./revert-reasons.js";
import { TransactionFailedError } from "../errors.js";

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

/**
 * Read-only contract calls the write services validate with (one `eth_call` each, no provider
 * machinery), plus gas estimation that turns reverts into `TransactionFailedError` with the
 * API's reason string.
 */
export class ChainReader {
  readonly #rpc: RpcClient;
  readonly #contracts: ContractAddresses;

  constructor(rpc: RpcClient, contracts: ContractAddresses) {
    this.#rpc = rpc;
    this.#contracts = contracts;
  }

  async isAssetTypeRegistered(name: string): Promise<boolean> {
    const data = registryInterface.encodeFunctionData("isRegistered", [name]);
    const out = await this.#call(this.#contracts.assetTypeRegistry, data);
    return registryInterface.decodeFunctionResult("isRegistered", out)[0] as boolean;
  }

  async registeredTypes(): Promise<string[]> {
    const out = await this.#call(
      this.#contracts.assetTypeRegistry,
      registryInterface.encodeFunctionData("allTypes", []),
    );
    return [...(registryInterface.decodeFunctionResult("allTypes", out)[0] as string[])];
  }

  /** Owner of a token, or undefined when it does not exist. */
  async ownerOf(tokenId: bigint): Promise<string | undefined> {
    try {
      const out = await this.#call(
        this.#contracts.assetToken,
        assetTokenInterface.encodeFunctionData("ownerOf", [tokenId]),
      );
      return getAddress(assetTokenInterface.decodeFunctionResult("ownerOf", out)[0] as string);
    } catch (error) {
      if (error instanceof RpcResponseError && classifyRpcFailure(error) === "revert")
        return undefined;
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
    const l = marketplaceInterface.decodeFunctionResult("getListing", raw)[0] as unknown as {
      seller: string;
      listedAt: bigint;
      expiresAt: bigint;
      state: bigint;
      buyer: string;
      tokenId: bigint;
      price: bigint;
    };
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
        marketplaceInterface.decodeFunctionResult("stateOf", state)[0] as bigint,
      ),
    };
  }

  async hasRegistrarRole(account: string): Promise<boolean> {
    const roleOut = await this.#call(
      this.#contracts.assetTypeRegistry,
      registryInterface.encodeFunctionData("REGISTRAR_ROLE", []),
    );
    const role = registryInterface.decodeFunctionResult("REGISTRAR_ROLE", roleOut)[0] as string;
    const out = await this.#call(
      this.#contracts.assetTypeRegistry,
      registryInterface.encodeFunctionData("hasRole", [role, account]),
    );
    return registryInterface.decodeFunctionResult("hasRole", out)[0] as boolean;
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

  async #call(to: string, data: string): Promise<string> {
    return this.#rpc.call<string>("eth_call", [{ to, data }, "latest"]);
  }
}
