import { AbiCoder } from "ethers";
import type { AppContext } from "../context.js";
import {
  assetTokenInterface,
  LISTING_STATE,
  marketplaceInterface,
  registryInterface,
} from "../chain/abis.js";
import { txRuntimeOf } from "../chain/tx-runtime.js";
import { ValidationError } from "../errors.js";
import { formatCoin, parseCoin } from "./amounts.js";
import { assetTypeCacheOf } from "./issue-asset.js";
import { WRITE_LIMITS } from "./limits.js";
import { parseAddress, parseId } from "./write-inputs.js";
import type { PreparedCall } from "./write-executor.js";
import type { OrgWallet } from "./wallet-of-org.js";

/** Refuses tokens the wallet does not hold (400, nothing sent). */
async function requireHeld(ctx: AppContext, wallet: OrgWallet, tokenId: bigint): Promise<void> {
  const owner = await txRuntimeOf(ctx).reader.ownerOf(tokenId);
  if (owner === undefined) throw new ValidationError(`Token ${tokenId} does not exist`);
  if (owner.toLowerCase() !== wallet.address.toLowerCase()) {
    throw new ValidationError(`Token ${tokenId} is not held by this organization's wallet`);
  }
}

/** `transfer`: `safeTransferFrom(wallet, to, tokenId)`. */
export async function prepareTransfer(
  ctx: AppContext,
  wallet: OrgWallet,
  input: { tokenId: string | number; toAddress: string },
): Promise<PreparedCall[]> {
  const tokenId = parseId(input.tokenId, "tokenId");
  const to = parseAddress(input.toAddress, "toAddress");
  await requireHeld(ctx, wallet, tokenId);
  const data = assetTokenInterface.encodeFunctionData("safeTransferFrom(address,address,uint256)", [
    wallet.address,
    to,
    tokenId,
  ]);
  return [
    {
      to: ctx.contracts.assetToken,
      data,
      value: 0n,
      context: { from: wallet.address, to, tokenId: tokenId.toString() },
    },
  ];
}

/**
 * `marketplace/list`: one transaction, no approval:
 * `safeTransferFrom(wallet, marketplace, tokenId, abi.encode(price, durationDays))`.
 */
export async function prepareList(
  ctx: AppContext,
  wallet: OrgWallet,
  input: {
    tokenId: string | number;
    priceInCOIN: string | number;
    durationDays?: number | undefined;
  },
): Promise<PreparedCall[]> {
  const tokenId = parseId(input.tokenId, "tokenId");
  const price = parseCoin(input.priceInCOIN, "priceInCOIN");
  if (price === 0n) throw new ValidationError("Invalid field: priceInCOIN (must be above zero)");
  const days = input.durationDays ?? WRITE_LIMITS.durationDaysDefault;
  await requireHeld(ctx, wallet, tokenId);
  const payload = AbiCoder.defaultAbiCoder().encode(["uint256", "uint256"], [price, BigInt(days)]);
  const data = assetTokenInterface.encodeFunctionData(
    "safeTransferFrom(address,address,uint256,bytes)",
    [wallet.address, ctx.contracts.marketplace, tokenId, payload],
  );
  return [
    {
      to: ctx.contracts.assetToken,
      data,
      value: 0n,
      context: {
        tokenId: tokenId.toString(),
        priceInCOIN: formatCoin(price),
        durationDays: days,
        seller: wallet.address,
      },
    },
  ];
}

/** Refuses inactive (expired, sold, cancelled, unknown) listings with the spec's 400. */
async function activeListing(ctx: AppContext, listingId: bigint) {
  const listing = await txRuntimeOf(ctx).reader.listing(listingId);
  if (listing === undefined || listing.effectiveState !== LISTING_STATE.Active)
    throw new ValidationError("Listing not active");
  return listing;
}

/**
 * `marketplace/buy`: `buy(listingId, maxPrice)` paying `maxPriceInCOIN` when given (the contract
 * refunds the excess), else the current price.
 */
export async function prepareBuy(
  ctx: AppContext,
  wallet: OrgWallet,
  input: { listingId: string | number; maxPriceInCOIN?: string | number | undefined },
): Promise<PreparedCall[]> {
  const listingId = parseId(input.listingId, "listingId");
  const maxPrice =
    input.maxPriceInCOIN === undefined
      ? undefined
      : parseCoin(input.maxPriceInCOIN, "maxPriceInCOIN");
  const listing = await activeListing(ctx, listingId);
  if (listing.seller.toLowerCase() === wallet.address.toLowerCase()) {
    throw new ValidationError("Seller cannot buy own listing");
  }
  const cap = maxPrice ?? listing.price;
  const value = maxPrice === undefined || maxPrice < listing.price ? listing.price : maxPrice;
  const data = marketplaceInterface.encodeFunctionData("buy", [listingId, cap]);
  return [
    {
      to: ctx.contracts.marketplace,
      data,
      value,
      context: {
        listingId: listingId.toString(),
        tokenId: listing.tokenId.toString(),
        buyer: wallet.address,
      },
    },
  ];
}

/** `marketplace/delist`: seller only (400 otherwise, nothing sent). */
export async function prepareDelist(
  ctx: AppContext,
  wallet: OrgWallet,
  input: { listingId: string | number },
): Promise<PreparedCall[]> {
  const listingId = parseId(input.listingId, "listingId");
  const listing = await activeListing(ctx, listingId);
  if (listing.seller.toLowerCase() !== wallet.address.toLowerCase()) {
    throw new ValidationError("Only the seller can delist this listing");
  }
  return [
    {
      to: ctx.contracts.marketplace,
      data: marketplaceInterface.encodeFunctionData("delist", [listingId]),
      value: 0n,
      context: { listingId: listingId.toString(), tokenId: listing.tokenId.toString() },
    },
  ];
}

/** `register-asset-type`: `registerType(name)` from the org's wallet (it holds REGISTRAR_ROLE). */
export async function prepareRegisterType(
  ctx: AppContext,
  _wallet: OrgWallet,
  input: { typeName: string },
): Promise<PreparedCall[]> {
  if (await assetTypeCacheOf(ctx).isRegistered(input.typeName)) {
    throw new ValidationError(`Asset type already registered: ${input.typeName}`);
  }
  return [
    {
      to: ctx.contracts.assetTypeRegistry,
      data: registryInterface.encodeFunctionData("registerType", [input.typeName]),
      value: 0n,
      context: { typeName: input.typeName },
    },
  ];
}
