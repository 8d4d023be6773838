import { keccak256, toUtf8Bytes, ZeroHash } from "ethers";
import type { AppContext } from "../context.js";
import { assetTokenInterface } from "../chain/abis.js";
import { txRuntimeOf } from "../chain/tx-runtime.js";
import { ValidationError } from "../errors.js";
import { formatCoin, parseCoin } from "./amounts.js";
import { AssetTypeCache } from "./asset-type-cache.js";
import { WRITE_LIMITS } from "./limits.js";
import { buildMetadata, storeMetadata, type BuiltMetadata } from "./metadata.js";
import type { PreparedCall } from "./write-executor.js";
import type { OrgWallet } from "./wallet-of-org.js";

/** One asset to issue (the issue-asset body; also each item of batch-issue). */
export interface IssueAssetInput {
  assetType: string;
  name: string;
  description: string;
  image?: string | undefined;
  externalUrl?: string | undefined;
  ipfsHash?: string | undefined;
  stakedAmount?: string | number | undefined;
  password?: string | undefined;
}

const caches = new WeakMap<AppContext, AssetTypeCache>();

/** The asset-type cache of `ctx`. */
export function assetTypeCacheOf(ctx: AppContext): AssetTypeCache {
  let cache = caches.get(ctx);
  if (cache === undefined) {
    cache = new AssetTypeCache(txRuntimeOf(ctx).reader);
    caches.set(ctx, cache);
  }
  return cache;
}

/**
 * Validates one asset (stake minimum, registered type, CID, URLs), builds its metadata document
 * and the `mint` call. The plaintext password is hashed here (keccak256) and goes no further.
 *
 * @param prefix field prefix in messages (`assets.3.` for batch items)
 */
export async function prepareIssue(
  ctx: AppContext,
  wallet: OrgWallet,
  input: IssueAssetInput,
  prefix = "",
): Promise<{ call: PreparedCall; metadata: BuiltMetadata }> {
  const stakeText = input.stakedAmount ?? WRITE_LIMITS.defaultStake;
  const stake = parseCoin(stakeText, `${prefix}stakedAmount`);
  if (stake < WRITE_LIMITS.minStakeWei) {
    throw new ValidationError(
      `${prefix === "" ? "" : prefix}stakedAmount minimum is 0.1 ${ctx.config.coinSymbol}`,
    );
  }
  checkUrl(input.image, `${prefix}image`, ["https:", "http:", "ipfs:"]);
  checkUrl(input.externalUrl, `${prefix}externalUrl`, ["https:", "http:"]);
  const metadata = await buildMetadata(input, input.ipfsHash);
  if (!(await assetTypeCacheOf(ctx).isRegistered(input.assetType))) {
    throw new ValidationError(
      `Invalid field: ${prefix}assetType (asset type not registered: ${input.assetType})`,
    );
  }
  const passwordHash =
    input.password === undefined || input.password === ""
      ? ZeroHash
      : keccak256(toUtf8Bytes(input.password));
  const p = metadata.cidParts;
  const data = assetTokenInterface.encodeFunctionData("mint", [
    input.assetType,
    [p.digest, p.version, p.codec, p.hashCode],
    passwordHash,
  ]);
  return {
    call: {
      to: ctx.contracts.assetToken,
      data,
      value: stake,
      context: {
        wallet: wallet.address,
        owner: wallet.address,
        assetType: input.assetType,
        name: input.name,
        stakedAmount: formatCoin(stake),
        ipfsHash: metadata.cid,
      },
    },
    metadata,
  };
}

/** Builds the issue-asset call (one) and stores its metadata document. */
export async function prepareIssueAsset(
  ctx: AppContext,
  wallet: OrgWallet,
  input: IssueAssetInput,
): Promise<PreparedCall[]> {
  const { call, metadata } = await prepareIssue(ctx, wallet, input);
  await storeMetadata(ctx.database, [metadata]);
  return [call];
}

/** Builds one mint per batch item (validating all first: one bad item fails the request with 400). */
export async function prepareBatchIssue(
  ctx: AppContext,
  wallet: OrgWallet,
  assets: readonly IssueAssetInput[],
): Promise<PreparedCall[]> {
  const prepared = await Promise.all(
    assets.map((asset, i) => prepareIssue(ctx, wallet, asset, `assets.${i}.`)),
  );
  await storeMetadata(
    ctx.database,
    prepared.map((p) => p.metadata),
  );
  return prepared.map((p) => p.call);
}

function checkUrl(value: string | undefined, field: string, protocols: readonly string[]): void {
  if (value === undefined || value === "") return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError(`Invalid field: ${field} (not a URL)`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ValidationError(
      `Invalid field: ${field} (must be an ${protocols.map((p) => p.replace(":", "")).join("/")} URL)`,
    );
  }
}
