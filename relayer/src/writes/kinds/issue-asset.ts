import { keccak256, toUtf8Bytes, ZeroHash } from "ethers";
import { z } from "zod";
import type { AppContext } from "../../context.js";
import { encodeMint } from "../../chain/contracts/call-data.js";
import { ValidationError } from "../../errors.js";
import { address } from "../../domain/address.js";
import { formatCoin, parseCoin } from "../../shared/coin-amount.js";
import { requireMintAllowed } from "../chain-checks.js";
import { WRITE_LIMITS as L } from "../limits.js";
import { METADATA_CONTEXT_KEY } from "../../metadata/bind-metadata.js";
import { buildMetadata, type BuiltMetadata } from "../../metadata/document.js";
import { amountField, textField } from "../../shared/parse-input.js";
import type { OrgWallet } from "../wallet-of-org.js";
import { receiptFactsSchema } from "../../chain/contracts/receipt-events.js";
import {
  confirmedResult,
  defineWriteKind,
  writeResult,
  type PreparedCall,
  WRITE_OPTIONS,
} from "./write-kind.js";

/** One asset: the body of issue-asset and each item of batch-issue. */
export const issueAssetRequest = z.strictObject({
  assetType: textField(L.assetTypeMax)
    .min(1, "must not be empty")
    .describe("registered asset type, case-sensitive"),
  name: textField(L.nameMax).min(1, "must not be empty"),
  description: textField(L.descriptionMax),
  image: textField(L.urlMax).optional().describe("HTTPS or IPFS URL"),
  externalUrl: textField(L.urlMax).optional(),
  ipfsHash: textField(L.ipfsHashMax)
    .optional()
    .describe("IPFS CID (v0 or v1, 32-byte digest); default: the CID of the generated metadata"),
  stakedAmount: amountField.optional().describe('default "0.1", minimum "0.1"'),
  password: textField(L.passwordMax).optional().describe("stored on chain as keccak256 only"),
});

/** One asset to issue (the issue-asset body; also each item of batch-issue). */
export type IssueAssetInput = z.output<typeof issueAssetRequest>;

/** Success body of issue-asset. */
export const issueAssetResponse = z.object({
  success: z.literal(true),
  tokenId: z.string(),
  txHash: z.string(),
  wallet: address,
  owner: address,
  assetType: z.string(),
  stakedAmount: z.string(),
  ipfsHash: z.string(),
});

/** What an issuance's response needs beside the receipt's `tokenId`. */
export const issueAssetContext = z.object({
  wallet: z.string(),
  owner: z.string(),
  assetType: z.string(),
  name: z.string(),
  stakedAmount: z.string(),
  ipfsHash: z.string(),
  /**
   * The metadata document (canonical JSON). It rides on the write's own row; the indexer binds
   * it to the token this row's transaction mints (`metadata/bind-metadata.ts`). A refused write
   * has no row, so nothing is stored for it.
   */
  [METADATA_CONTEXT_KEY]: z.string(),
});

/** The context of one issuance (`issueAssetContext`). */
export type IssueContext = z.output<typeof issueAssetContext>;

/**
 * A confirmed issuance's stored result (also each confirmed batch-issue item's): the mint always
 * emits `AssetIssued`, so `tokenId` is there; rows from before the metadata document rode on the
 * row lack it.
 */
export const issueAssetResult = writeResult(
  issueAssetContext.partial({ [METADATA_CONTEXT_KEY]: true }),
  receiptFactsSchema.required({ tokenId: true }),
);

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
): Promise<{ call: PreparedCall<IssueContext>; metadata: BuiltMetadata }> {
  const stakeText = input.stakedAmount ?? L.defaultStake;
  const stake = parseCoin(stakeText, `${prefix}stakedAmount`);
  if (stake < L.minStakeWei) {
    throw new ValidationError(`${prefix}stakedAmount minimum is 0.1 ${ctx.config.coinSymbol}`);
  }
  // `image` is fetched by wallets and marketplaces: https or ipfs only, plain http only where
  // local targets are allowed (development, WEBHOOK_ALLOW_LOCAL).
  checkUrl(
    input.image,
    `${prefix}image`,
    ctx.config.webhookAllowLocal ? ["https:", "ipfs:", "http:"] : ["https:", "ipfs:"],
  );
  checkUrl(input.externalUrl, `${prefix}externalUrl`, ["https:", "http:"]);
  const metadata = await buildMetadata(input, input.ipfsHash);
  if (!(await ctx.assetTypes.isRegistered(input.assetType))) {
    throw new ValidationError(
      `Invalid field: ${prefix}assetType (asset type not registered: ${input.assetType})`,
    );
  }
  const passwordHash =
    input.password === undefined || input.password === ""
      ? ZeroHash
      : keccak256(toUtf8Bytes(input.password));
  const data = encodeMint(input.assetType, metadata.cidParts, passwordHash);
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
        [METADATA_CONTEXT_KEY]: metadata.json,
      },
    },
    metadata,
  };
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

/** `POST /api/v1/write/issue-asset`: mint one token to the org's wallet, staking coin. */
export const issueAsset = defineWriteKind({
  kind: "issue-asset",
  path: "/api/v1/write/issue-asset",
  summary: "Issue one asset (mint + stake)",
  scopes: ["write:issue"],
  request: issueAssetRequest.extend(WRITE_OPTIONS),
  response: issueAssetResponse,
  context: issueAssetContext,
  docs: {
    operationId: "issueAsset",
    description:
      "Mints one ERC-721 token to the custodial wallet and stakes `stakedAmount` (default and " +
      "minimum 0.1 native coin). Budget about 0.15 coin per asset (stake plus gas).",
    errors: {
      400: [
        "Missing required field: assetType",
        "stakedAmount minimum is 0.1 COIN",
        "Invalid field: assetType (asset type not registered: Art)",
        "Transfers are paused",
        "Recipient is not allowed to hold this asset type",
      ],
      500: ["Transaction failed: Below min stake"],
    },
  },
  async prepare(ctx, wallet, input) {
    const { call } = await prepareIssue(ctx, wallet, input);
    await requireMintAllowed(ctx, wallet.address, [input.assetType]);
    return [call];
  },
  respond(row): z.output<typeof issueAssetResponse> {
    const { result: r, txHash } = confirmedResult(row, issueAssetResult);
    return {
      success: true,
      tokenId: r.tokenId,
      txHash,
      wallet: r.wallet,
      owner: r.owner,
      assetType: r.assetType,
      stakedAmount: r.stakedAmount,
      ipfsHash: r.ipfsHash,
    };
  },
});
