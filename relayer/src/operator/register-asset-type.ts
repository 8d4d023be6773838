import type { AppContext } from "../context.js";
import { bindContracts } from "../chain/contracts/bindings.js";
import { ValidationError } from "../errors.js";
import { sendOperatorTransaction } from "./operator-transactions.js";
import { withRpc } from "../chain/rpc/rpc-errors.js";
import type { AuditOrigin } from "../audit/audit-writer.js";
import { AUDIT_ACTIONS } from "../domain/audit.js";

/** Result of an operator registration of an asset type. */
export interface RegisteredAssetType {
  success: true;
  typeName: string;
  txHash: string;
}

/**
 * Registers an asset type from the operator account (which holds REGISTRAR_ROLE since deploy),
 * for operator staff who have no org key with `admin:types`. Goes through
 * `sendOperatorTransaction`, so it never races the faucet or role grants for a nonce.
 *
 * Audited around its broadcast (docs/audit-log.md "Acts on chain"): `operator_tx.attempted`
 * before, then `asset_type.registered` once mined (service-wide: no organization).
 *
 * @throws ValidationError when the type is already registered (checked first: the revert's
 *   custom error would otherwise surface as an opaque "execution reverted");
 *   OperatorFundsError (503) when the operator account cannot pay; RpcUnavailableError;
 *   TransactionFailedError on a revert
 */
export async function registerAssetTypeAsOperator(
  ctx: AppContext,
  typeName: string,
  origin: AuditOrigin,
): Promise<RegisteredAssetType> {
  const { registry } = bindContracts(ctx.contracts, ctx.provider);
  const already = await withRpc(() => registry.isRegistered(typeName));
  if (already) throw new ValidationError(`Asset type already registered: ${typeName}`);
  const receipt = await sendOperatorTransaction(
    ctx,
    {
      to: ctx.contracts.assetTypeRegistry,
      data: registry.interface.encodeFunctionData("registerType", [typeName]),
    },
    `registering the asset type ${JSON.stringify(typeName)}`,
    {
      origin,
      entry: {
        orgId: null,
        action: AUDIT_ACTIONS.assetTypeRegistered,
        target: `asset-type:${typeName}`,
        changes: { typeName },
      },
    },
  );
  ctx.logger.info({ typeName, txHash: receipt.hash }, "asset type registered by operator");
  return { success: true, typeName, txHash: receipt.hash };
}
