import { getAddress, isError, type TransactionReceipt } from "ethers";
import { appendAudit, type AuditOrigin } from "../audit/audit-writer.js";
import type { OperatorAct } from "../audit/operator-act-audit.js";
import type { AppContext } from "../context.js";
import { AUDIT_ACTIONS, type AuditChanges, type KnownAuditAction } from "../domain/audit.js";
import { assetTokenInterface } from "../chain/contracts/bindings.js";
import { revertReason } from "../chain/contracts/revert-reasons.js";
import { NotFoundError, TransactionFailedError, ValidationError } from "../errors.js";
import { complianceRefusal } from "../writes/chain-checks.js";
import { parseAddress, parseId } from "../shared/parse-input.js";
import { sendOperatorTransaction } from "./operator-transactions.js";

/**
 * The operator's compliance actions on AssetToken (docs/contracts.md "Compliance controls"), one function
 * per action, each carrying the operator's `reason` (written on chain with the action, so the
 * indexer, the webhook events and the audit log all read the same words). Each checks what the
 * contract would refuse before sending, answers once the operator account's transaction is mined
 * (`sendOperatorTransaction`: the operator holds the token's enforcer, pauser and registrar roles
 * since deploy), and sends nothing when the state already is what was asked: a second freeze of
 * a frozen token answers like the first, with the hash of the transaction that froze it.
 *
 * Audit (docs/audit-log.md "Acts on chain"): a sent act appends `operator_tx.attempted` before
 * its broadcast and its own row (`asset.frozen`, ...) once mined, or a failure row; an act that
 * sends nothing appends its own row at once, naming the hash of the state's transaction. The
 * fields are the answer's; the row is filed under the organization whose wallet holds the token,
 * if any.
 */

/** Longest reason accepted (it is stored on chain and sent in webhooks). */
export const MAX_REASON_LENGTH = 500;

/** The hash of the transaction that made the current state, when the indexer has read it. */
type StateTx = string | null;

/** Result of freeze / unfreeze. */
export interface FreezeResult {
  success: true;
  tokenId: string;
  frozen: boolean;
  reason: string;
  txHash: StateTx;
}

/** Result of pause / resume. */
export interface PauseResult {
  success: true;
  paused: boolean;
  reason: string;
  txHash: StateTx;
}

/** Result of a forced transfer. */
export interface ForcedTransferResult {
  success: true;
  tokenId: string;
  from: string;
  to: string;
  reason: string;
  txHash: string;
  /** The listing that ended cancelled because the token was in escrow, or null. */
  cancelledListingId: string | null;
}

/** Result of marking an asset type restricted or not. */
export interface TypeRestrictionResult {
  success: true;
  name: string;
  restricted: boolean;
  txHash: StateTx;
}

/** Result of an allowlist change. */
export interface AllowlistResult {
  success: true;
  address: string;
  allowed: boolean;
  txHash: StateTx;
}

/** One allowlisted address (read model). */
export interface AllowlistEntry {
  address: string;
  txHash: string;
  addedAt: string;
}

/** Checks and trims an operator's reason: required, at most `MAX_REASON_LENGTH` characters. */
export function parseReason(value: string): string {
  const reason = value.trim();
  if (reason === "") throw new ValidationError("Missing required field: reason");
  if (reason.length > MAX_REASON_LENGTH)
    throw new ValidationError(
      `Invalid field: reason (must be at most ${MAX_REASON_LENGTH} characters)`,
    );
  return reason;
}

/** An audited compliance act: who, the action, its target and fields, and the org concerned. */
interface ComplianceAct {
  origin: AuditOrigin;
  action: KnownAuditAction;
  target: string;
  orgId: string | null;
}

/** The act's audit entry: the answer's fields (`success` and `txHash` aside: the hash is added). */
function operatorAct(act: ComplianceAct, fields: AuditChanges): OperatorAct {
  const changes: AuditChanges = Object.fromEntries(
    Object.entries(fields).filter(
      ([key, value]) => key !== "success" && key !== "txHash" && value !== undefined,
    ),
  );
  return {
    origin: act.origin,
    entry: { orgId: act.orgId, action: act.action, target: act.target, changes },
  };
}

/** Appends the row of an act that sent nothing (the state already held): the answer's fields. */
async function auditUnchanged<T extends object>(
  ctx: AppContext,
  act: ComplianceAct,
  result: T,
): Promise<T> {
  const { entry } = operatorAct(act, result as AuditChanges);
  const txHash = (result as { txHash?: string | null }).txHash ?? null;
  await appendAudit(ctx.database.db, act.origin, {
    ...entry,
    changes: { ...entry.changes, txHash },
  });
  return result;
}

/** The organization whose wallet holds the token (as indexed), if any. */
async function holderOrgOf(ctx: AppContext, tokenId: bigint): Promise<string | null> {
  const { rows } = await ctx.database.pool.query<{ org_id: string }>(
    `SELECT w.org_id FROM assets a JOIN wallets w ON lower(w.address) = lower(a.owner)
      WHERE a.token_id = $1::numeric`,
    [tokenId.toString()],
  );
  return rows[0]?.org_id ?? null;
}

/**
 * Sends one AssetToken call from the operator account, audited as `act` (docs/contracts.md "Compliance
 * controls"); a revert at estimation reads as the contract's reason.
 */
async function sendTokenCall(
  ctx: AppContext,
  data: string,
  purpose: string,
  act: OperatorAct,
): Promise<TransactionReceipt> {
  return sendOperatorTransaction(ctx, { to: ctx.contracts.assetToken, data }, purpose, act)
    .finally(() => ctx.engine.head.forgetCompliance())
    .catch((error: unknown) => {
      // Gas estimation reverted (say, the operator lacks the role): name the contract's reason.
      const cause = error instanceof TransactionFailedError ? error.cause : undefined;
      if (isError(cause, "CALL_EXCEPTION") && typeof cause.data === "string")
        throw new TransactionFailedError(revertReason(cause.data), { cause });
      throw error;
    });
}

/** The token's holder, or 404 `Asset not found`. */
async function holderOf(ctx: AppContext, tokenId: bigint): Promise<string> {
  const holder = await ctx.engine.reader.ownerOf(tokenId);
  if (holder === undefined) throw new NotFoundError("Asset not found");
  return holder;
}

/** The indexed freeze state of a token: the reason and hash of its latest freeze or unfreeze. */
async function indexedFreeze(
  ctx: AppContext,
  tokenId: bigint,
): Promise<{ reason: string; txHash: string } | undefined> {
  const { rows } = await ctx.database.pool.query<{ tx_hash: string; reason: string }>(
    `SELECT tx_hash, args->>'reason' AS reason FROM chain_logs
     WHERE token_id = $1 AND kind IN ('AssetFrozen', 'AssetUnfrozen')
     ORDER BY block_number DESC, log_index DESC LIMIT 1`,
    [tokenId.toString()],
  );
  const row = rows[0];
  return row === undefined ? undefined : { reason: row.reason, txHash: row.tx_hash };
}

/**
 * Freezes (`frozen: true`) or unfreezes a token wherever it is held (in escrow too).
 *
 * @throws NotFoundError `Asset not found`; ValidationError for a bad id or reason;
 *   TransactionFailedError, OperatorFundsError, RpcUnavailableError
 */
export async function setAssetFrozen(
  ctx: AppContext,
  input: { tokenId: string; frozen: boolean; reason: string },
  origin: AuditOrigin,
): Promise<FreezeResult> {
  const tokenId = parseId(input.tokenId, "tokenId");
  const reason = parseReason(input.reason);
  const holder = await holderOf(ctx, tokenId);
  const tokenText = tokenId.toString();
  const act: ComplianceAct = {
    origin,
    action: input.frozen ? AUDIT_ACTIONS.assetFrozen : AUDIT_ACTIONS.assetUnfrozen,
    target: tokenText,
    orgId: await holderOrgOf(ctx, tokenId),
  };
  if ((await ctx.engine.reader.isFrozen(tokenId)) === input.frozen) {
    const last = await indexedFreeze(ctx, tokenId);
    return auditUnchanged<FreezeResult>(ctx, act, {
      success: true,
      tokenId: tokenText,
      frozen: input.frozen,
      reason: last?.reason ?? reason,
      txHash: last?.txHash ?? null,
    });
  }
  const data = input.frozen
    ? assetTokenInterface.encodeFunctionData("freeze", [tokenId, reason])
    : assetTokenInterface.encodeFunctionData("unfreeze", [tokenId, reason]);
  const receipt = await sendTokenCall(
    ctx,
    data,
    input.frozen ? "a freeze" : "an unfreeze",
    operatorAct(act, { tokenId: tokenText, frozen: input.frozen, reason }),
  );
  ctx.logger.info(
    { tokenId: tokenText, holder, frozen: input.frozen, txHash: receipt.hash },
    input.frozen ? "asset frozen by operator" : "asset unfrozen by operator",
  );
  return { success: true, tokenId: tokenText, frozen: input.frozen, reason, txHash: receipt.hash };
}

/**
 * Pauses (`paused: true`) or resumes every transfer and the marketplace.
 *
 * @throws ValidationError for a bad reason; TransactionFailedError, OperatorFundsError,
 *   RpcUnavailableError
 */
export async function setMarketPaused(
  ctx: AppContext,
  input: { paused: boolean; reason: string },
  origin: AuditOrigin,
): Promise<PauseResult> {
  const reason = parseReason(input.reason);
  const act: ComplianceAct = {
    origin,
    action: input.paused ? AUDIT_ACTIONS.marketPaused : AUDIT_ACTIONS.marketResumed,
    target: "market",
    orgId: null,
  };
  if ((await ctx.engine.reader.paused()) === input.paused) {
    const { rows } = await ctx.database.pool.query<{ reason: string; tx_hash: string }>(
      `SELECT reason, tx_hash FROM market_state WHERE id = 'market' AND paused = $1`,
      [input.paused],
    );
    const row = rows[0];
    return auditUnchanged<PauseResult>(ctx, act, {
      success: true,
      paused: input.paused,
      reason: row?.reason ?? reason,
      txHash: row?.tx_hash ?? null,
    });
  }
  const data = input.paused
    ? assetTokenInterface.encodeFunctionData("pause", [reason])
    : assetTokenInterface.encodeFunctionData("unpause", [reason]);
  const receipt = await sendTokenCall(
    ctx,
    data,
    input.paused ? "a pause" : "a resume",
    operatorAct(act, { paused: input.paused, reason }),
  );
  ctx.logger.info(
    { paused: input.paused, txHash: receipt.hash },
    input.paused ? "market paused by operator" : "market resumed by operator",
  );
  return { success: true, paused: input.paused, reason, txHash: receipt.hash };
}

/**
 * Moves a token to `toAddress` by force (frozen or not, paused or not). An escrowed token's
 * listing ends cancelled first; a frozen token arrives unfrozen (ERC-7943).
 *
 * @throws NotFoundError `Asset not found`; ValidationError for the zero address (`parseAddress`),
 *   the marketplace, the current holder, or a recipient a restricted type does not allow;
 *   TransactionFailedError, OperatorFundsError, RpcUnavailableError
 */
export async function forceTransferAsset(
  ctx: AppContext,
  input: { tokenId: string; toAddress: string; reason: string },
  origin: AuditOrigin,
): Promise<ForcedTransferResult> {
  const tokenId = parseId(input.tokenId, "tokenId");
  const to = parseAddress(input.toAddress, "toAddress");
  const reason = parseReason(input.reason);
  const marketplace = getAddress(ctx.contracts.marketplace);
  if (to === marketplace)
    throw new ValidationError("Invalid field: toAddress (must not be the marketplace)");
  const reader = ctx.engine.reader;
  const holder = await holderOf(ctx, tokenId);
  if (holder === to)
    throw new ValidationError("Invalid field: toAddress (already holds the asset)");
  const [restricted, allowed] = await Promise.all([
    typeRestrictedOf(ctx, tokenId),
    reader.isAllowed(to),
  ]);
  // A forced transfer overrides the pause and the freeze, not a restricted type's allowlist.
  const refusal = complianceRefusal({ restricted, recipientAllowed: allowed });
  if (refusal !== undefined) throw new ValidationError(refusal);
  const listingId = holder === marketplace ? await reader.activeListingOf(tokenId) : 0n;
  const cancelledListingId = listingId === 0n ? null : listingId.toString();
  const data = assetTokenInterface.encodeFunctionData("forcedTransferWithReason", [
    holder,
    to,
    tokenId,
    reason,
  ]);
  const act: ComplianceAct = {
    origin,
    action: AUDIT_ACTIONS.assetForcedTransfer,
    target: tokenId.toString(),
    orgId: await holderOrgOf(ctx, tokenId),
  };
  const receipt = await sendTokenCall(
    ctx,
    data,
    "a forced transfer",
    operatorAct(act, {
      tokenId: tokenId.toString(),
      from: holder,
      to,
      reason,
      cancelledListingId,
    }),
  );
  ctx.logger.info(
    { tokenId: tokenId.toString(), from: holder, to, txHash: receipt.hash },
    "asset moved by forced transfer",
  );
  return {
    success: true,
    tokenId: tokenId.toString(),
    from: holder,
    to,
    reason,
    txHash: receipt.hash,
    cancelledListingId,
  };
}

/** Whether the type of a live token is restricted (read on chain). */
async function typeRestrictedOf(ctx: AppContext, tokenId: bigint): Promise<boolean> {
  const name = await ctx.engine.reader.assetTypeOf(tokenId);
  return ctx.engine.reader.isTypeRestricted(name);
}

/**
 * Marks a registered asset type restricted or not.
 *
 * @throws NotFoundError `Asset type not found`; TransactionFailedError, OperatorFundsError,
 *   RpcUnavailableError
 */
export async function setAssetTypeRestricted(
  ctx: AppContext,
  input: { name: string; restricted: boolean },
  origin: AuditOrigin,
): Promise<TypeRestrictionResult> {
  const reader = ctx.engine.reader;
  if (!(await reader.isAssetTypeRegistered(input.name)))
    throw new NotFoundError("Asset type not found");
  const act: ComplianceAct = {
    origin,
    action: AUDIT_ACTIONS.assetTypeRestrictionChanged,
    target: input.name,
    orgId: null,
  };
  if ((await reader.isTypeRestricted(input.name)) === input.restricted) {
    const { rows } = await ctx.database.pool.query<{ tx_hash: string }>(
      `SELECT l.tx_hash FROM chain_logs l JOIN asset_types t ON t.type_id = l.args->>'typeId'
       WHERE l.kind = 'AssetTypeRestrictionSet' AND t.name = $1
       ORDER BY l.block_number DESC, l.log_index DESC LIMIT 1`,
      [input.name],
    );
    return auditUnchanged<TypeRestrictionResult>(ctx, act, {
      success: true,
      name: input.name,
      restricted: input.restricted,
      txHash: rows[0]?.tx_hash ?? null,
    });
  }
  const data = assetTokenInterface.encodeFunctionData("setTypeRestricted", [
    input.name,
    input.restricted,
  ]);
  const receipt = await sendTokenCall(
    ctx,
    data,
    "an asset type restriction",
    operatorAct(act, { name: input.name, restricted: input.restricted }),
  );
  ctx.logger.info(
    { assetType: input.name, restricted: input.restricted, txHash: receipt.hash },
    "asset type restriction set by operator",
  );
  return { success: true, name: input.name, restricted: input.restricted, txHash: receipt.hash };
}

/**
 * Adds an address to (`allowed: true`) or removes it from the allowlist of restricted types.
 * Registration adds each organization's wallet (`org-registration.ts`, naming the new `orgId`
 * for the audit rows; otherwise they are filed under the org whose wallet the address is).
 *
 * @throws ValidationError for a bad or zero address; TransactionFailedError, OperatorFundsError,
 *   RpcUnavailableError
 */
export async function setAllowlisted(
  ctx: AppContext,
  input: { address: string; allowed: boolean; orgId?: string },
  origin: AuditOrigin,
): Promise<AllowlistResult> {
  const address = parseAddress(input.address, "address");
  const act: ComplianceAct = {
    origin,
    action: input.allowed ? AUDIT_ACTIONS.allowlistAdded : AUDIT_ACTIONS.allowlistRemoved,
    target: address,
    orgId: input.orgId ?? (await walletOrgOf(ctx, address)),
  };
  if ((await ctx.engine.reader.isAllowed(address)) === input.allowed) {
    const { rows } = await ctx.database.pool.query<{ tx_hash: string }>(
      `SELECT tx_hash FROM chain_logs WHERE kind = 'AllowlistUpdated' AND args->>'account' = $1
       ORDER BY block_number DESC, log_index DESC LIMIT 1`,
      [address.toLowerCase()],
    );
    const result: AllowlistResult = {
      success: true,
      address,
      allowed: input.allowed,
      txHash: rows[0]?.tx_hash ?? null,
    };
    return auditUnchanged(ctx, act, result);
  }
  const data = assetTokenInterface.encodeFunctionData("setAllowed", [address, input.allowed]);
  const receipt = await sendTokenCall(
    ctx,
    data,
    input.allowed ? "an allowlist addition" : "an allowlist removal",
    operatorAct(act, { address, allowed: input.allowed }),
  );
  ctx.logger.info(
    { address, allowed: input.allowed, txHash: receipt.hash },
    "allowlist updated by operator",
  );
  return { success: true, address, allowed: input.allowed, txHash: receipt.hash };
}

/** The organization whose wallet `address` is, if any. */
async function walletOrgOf(ctx: AppContext, address: string): Promise<string | null> {
  const { rows } = await ctx.database.pool.query<{ org_id: string }>(
    `SELECT org_id FROM wallets WHERE lower(address) = lower($1) LIMIT 1`,
    [address],
  );
  return rows[0]?.org_id ?? null;
}

/** The allowlist as indexed, oldest first. */
export async function listAllowlist(ctx: AppContext): Promise<{ addresses: AllowlistEntry[] }> {
  const { rows } = await ctx.database.pool.query<{
    address: string;
    tx_hash: string;
    added_at: Date;
  }>(`SELECT address, tx_hash, added_at FROM allowlist ORDER BY block_number, address`);
  return {
    addresses: rows.map((r) => ({
      address: getAddress(r.address),
      txHash: r.tx_hash,
      addedAt: r.added_at.toISOString(),
    })),
  };
}
