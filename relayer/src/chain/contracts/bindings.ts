import { Fragment, Interface, type ContractRunner, type JsonFragment } from "ethers";
import type { AssetToken } from "../../../../typechain-types/AssetToken.js";
import type { AssetTypeRegistry } from "../../../../typechain-types/AssetTypeRegistry.js";
import { AssetToken__factory } from "../../../../typechain-types/factories/AssetToken__factory.js";
import { AssetTypeRegistry__factory } from "../../../../typechain-types/factories/AssetTypeRegistry__factory.js";
import { Marketplace__factory } from "../../../../typechain-types/factories/Marketplace__factory.js";
import type { Marketplace } from "../../../../typechain-types/Marketplace.js";

/**
 * The project's contracts, bound through the TypeChain factories generated from the compiled
 * artifacts (`typechain-types/`, written by `npm run build`). Nothing here is written by hand:
 * a changed Solidity signature changes these types, and the relayer's type check fails where
 * it calls the old one. See docs/architecture.md ("Chain access").
 */

/** AssetToken calls, events and errors (typed: `encodeFunctionData("mint", [...])` is checked). */
export const assetTokenInterface = AssetToken__factory.createInterface();
/** AssetTypeRegistry calls, events and errors. */
export const registryInterface = AssetTypeRegistry__factory.createInterface();
/** Marketplace calls, events and errors. */
export const marketplaceInterface = Marketplace__factory.createInterface();

const ABIS: ReadonlyArray<readonly JsonFragment[]> = [
  AssetTypeRegistry__factory.abi,
  AssetToken__factory.abi,
  Marketplace__factory.abi,
];

/**
 * Every event and error of the three contracts (inherited OpenZeppelin ones included, as the
 * compiler lists them), once each: what decodes receipt logs, indexed logs and revert data.
 */
export const contractsInterface = new Interface([
  ...new Map(
    ABIS.flat()
      .filter((f) => f.type === "event" || f.type === "error")
      .map((f) => {
        const fragment = Fragment.from(f);
        return [fragment.format("sighash") + fragment.type, fragment] as const;
      }),
  ).values(),
]);

/** Addresses of the deployed contracts (from deployments/<chainId>.json). */
export interface ContractAddresses {
  assetTypeRegistry: string;
  assetToken: string;
  marketplace: string;
  deployBlock: number;
}

/** The three deployed contracts as typed ethers contracts. */
export interface BoundContracts {
  registry: AssetTypeRegistry;
  token: AssetToken;
  marketplace: Marketplace;
}

/**
 * Binds the deployed contracts to a runner (a provider for reads, a signer for writes).
 *
 * @example
 * const { registry } = bindContracts(ctx.contracts, ctx.provider);
 * const role = await registry.REGISTRAR_ROLE();
 */
export function bindContracts(
  addresses: Pick<ContractAddresses, "assetTypeRegistry" | "assetToken" | "marketplace">,
  runner: ContractRunner,
): BoundContracts {
  return {
    registry: AssetTypeRegistry__factory.connect(addresses.assetTypeRegistry, runner),
    token: AssetToken__factory.connect(addresses.assetToken, runner),
    marketplace: Marketplace__factory.connect(addresses.marketplace, runner),
  };
}

/** `IMarketplace.ListingState` as numbers. */
export const LISTING_STATE = { None: 0, Active: 1, Sold: 2, Cancelled: 3, Expired: 4 } as const;
