// Generated from relayer/src/writes/kinds/index.ts by relayer/sdk/generate-write-methods.ts.
// Do not edit: run `node --import tsx relayer/sdk/generate-write-methods.ts` after adding a write kind.
import type { WriteMethod } from "./options.js";

/** The path of each write method (by operation id), in registry order. */
export const WRITE_PATHS = {
  issueAsset: "/api/v1/write/issue-asset",
  batchIssue: "/api/v1/write/batch-issue",
  transfer: "/api/v1/write/transfer",
  listAsset: "/api/v1/write/marketplace/list",
  buyAsset: "/api/v1/write/marketplace/buy",
  delistAsset: "/api/v1/write/marketplace/delist",
  redeemAsset: "/api/v1/write/redeem-asset",
  registerAssetType: "/api/v1/write/register-asset-type",
} as const;

/** The client's write methods, one per write kind. */
export interface WriteMethods {
  /** `POST /api/v1/write/issue-asset` (scope `write:issue`): Issue one asset (mint + stake). */
  issueAsset: WriteMethod<"/api/v1/write/issue-asset">;
  /** `POST /api/v1/write/batch-issue` (scope `write:issue`): Issue 1 to 50 assets (one transaction each, partial failure possible). */
  batchIssue: WriteMethod<"/api/v1/write/batch-issue">;
  /** `POST /api/v1/write/transfer` (scope `write:transfer`): Transfer an asset from the custodial wallet. */
  transfer: WriteMethod<"/api/v1/write/transfer">;
  /** `POST /api/v1/write/marketplace/list` (scope `write:marketplace`): List an asset on the marketplace (escrow, one transaction). */
  listAsset: WriteMethod<"/api/v1/write/marketplace/list">;
  /** `POST /api/v1/write/marketplace/buy` (scope `write:marketplace`): Buy an active listing (maxPriceInCOIN guards against price changes). */
  buyAsset: WriteMethod<"/api/v1/write/marketplace/buy">;
  /** `POST /api/v1/write/marketplace/delist` (scope `write:marketplace`): Cancel a listing, or take back the token of an expired one (seller only); the asset returns to the wallet. */
  delistAsset: WriteMethod<"/api/v1/write/marketplace/delist">;
  /** `POST /api/v1/write/redeem-asset` (scope `write:issue`): Redeem (burn) an asset; its stake returns to the org wallet. */
  redeemAsset: WriteMethod<"/api/v1/write/redeem-asset">;
  /** `POST /api/v1/write/register-asset-type` (scope `admin:types`): Register a new asset type (the org's wallet holds REGISTRAR_ROLE). */
  registerAssetType: WriteMethod<"/api/v1/write/register-asset-type">;
}
