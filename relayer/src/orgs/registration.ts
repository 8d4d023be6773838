import { emailTaken, invitePersonIn, type InvitedPerson } from "../people/people.js";
import pLimit from "p-limit";
import { bindContracts } from "../chain/contracts/bindings.js";
import type { AppContext } from "../context.js";
import { apiKeys, orgs, walletAlerts, wallets } from "../db/schema/index.js";
import { ConflictError, ValidationError } from "../errors.js";
import { generateApiKey } from "../auth/api-key-format.js";
import { sameScopes } from "../auth/scopes.js";
import type { DevFaucetOutcome, Plan, RegisteredOrganization } from "../domain/org.js";
import { DEFAULT_ORG_SCOPES, type Scope } from "../domain/scope.js";
import { newId } from "../shared/ids.js";
import { formatCoin } from "../shared/coin-amount.js";
import { setAllowlisted } from "../operator/compliance.js";
import { OperatorFundsError, sendOperatorTransaction } from "../operator/operator-transactions.js";
import { withRpc } from "../chain/rpc/rpc-errors.js";
import { appendAudit, type AuditOrigin } from "../audit/audit-writer.js";
import { AUDIT_ACTIONS } from "../domain/audit.js";

/** Validated input of `POST /api/enterprise/register`. */
export interface RegisterOrganizationInput {
  orgName: string;
  /** Only `custodial` exists. */
  walletMode: "custodial";
  /** Undefined means the default scopes. */
  scopes?: Scope[] | undefined;
  plan: Plan;
  /**
   * The first owner (docs/people.md): invited in the registration's transaction; the answer's
   * `ownerInvitation` carries the link. `baseUrl` is where the console is reached.
   */
  owner?: { email: string; baseUrl: string } | undefined;
}

/**
 * Registrations of this process running at once. Each holds a database transaction (one pool
 * connection) across its operator transactions (allowlisting, the dev faucet, a role grant), and
 * each of those needs two more: the operator's lock and its audit rows. Twenty at once took all
 * twenty connections and waited for a twenty-first (503 `Database unavailable`); four leave the
 * pool to everything else.
 */
const registrations = pLimit(4);

/**
 * Onboards an organization: creates the org, its custodial wallet (a fresh key pair made by the
 * SIGNER backend: sealed by the key store with the wallet id as context, or generated inside the
 * PKCS#11 token, which keeps it), its first API key and the `org.registered` audit row (by
 * `origin`), all in one database transaction. A key
 * the token made for a registration that then fails is destroyed again. Before committing it grants the wallet `REGISTRAR_ROLE` on the
 * AssetTypeRegistry for orgs granted `admin:types`, adds the wallet to AssetToken's allowlist of
 * restricted asset types, then funds the wallet from the operator account (local chain with a
 * non-zero `devFaucetAmountWei` only) and has the balance watch start reading the wallet at the
 * faucet's block.
 *
 * The operator account pays for both (docs/api-decisions.md, "Operator account"): when it cannot pay for the
 * role grant, registration fails at once with 503 naming its balance and nothing is stored; when
 * it cannot pay the faucet, the organization is registered without the coin and the response's
 * `devFaucet` says so (the faucet is a development convenience; the wallet can be funded later).
 *
 * Custom scopes (anything granting other than the default set) need a paid plan (docs/api-decisions.md).
 *
 * @throws ValidationError for custom scopes on the free plan; OperatorFundsError (503) when the
 *   operator account cannot pay for the role grant; RpcUnavailableError when the chain node is
 *   unreachable; HsmUnavailableError (503) when SIGNER=pkcs11 and the token cannot make a key
 */
export async function registerOrganization(
  ctx: AppContext,
  input: RegisterOrganizationInput,
  origin: AuditOrigin,
): Promise<RegisteredOrganization> {
  const scopes = input.scopes === undefined ? [...DEFAULT_ORG_SCOPES] : [...new Set(input.scopes)];
  if (input.plan === "free" && !sameScopes(scopes, DEFAULT_ORG_SCOPES)) {
    throw new ValidationError(
      "Custom scopes are not available on the free plan (use basic, pro or enterprise)",
    );
  }

  // An email already taken fails before anything is made (the invitation in the transaction
  // below checks again).
  if (input.owner !== undefined && (await emailTaken(ctx, input.owner.email)))
    throw new ConflictError("A person with this email already exists");

  const orgId = newId("org");
  let ownerInvitation: InvitedPerson["invitation"] | undefined;
  const walletId = newId("wal");
  const keyId = newId("key");
  const key = await ctx.signers.createKey(walletId);
  const wallet = { address: key.address };
  const apiKey = generateApiKey();
  const isRegistrar = scopes.includes("admin:types");
  let devFaucet: DevFaucetOutcome | undefined;

  const stored = registrations(() =>
    ctx.database.db.transaction(async (tx) => {
      await tx.insert(orgs).values({ id: orgId, name: input.orgName, plan: input.plan, scopes });
      await tx.insert(wallets).values({
        id: walletId,
        orgId,
        address: wallet.address,
        encryptedKey: key.keyRef,
        signerBackend: key.backend,
        isRegistrar,
      });
      await tx.insert(apiKeys).values({
        id: keyId,
        orgId,
        keyHash: apiKey.hash,
        keyPrefix: apiKey.prefix,
        label: "default",
        scopes,
      });
      if (isRegistrar) {
        const { registry } = bindContracts(ctx.contracts, ctx.provider);
        const role = await withRpc(() => registry.REGISTRAR_ROLE());
        const data = registry.interface.encodeFunctionData("grantRole", [role, wallet.address]);
        const receipt = await sendOperatorTransaction(
          ctx,
          { to: ctx.contracts.assetTypeRegistry, data },
          "the REGISTRAR_ROLE grant of an admin:types organization",
          {
            origin,
            entry: {
              orgId,
              action: AUDIT_ACTIONS.registrarRoleGranted,
              target: wallet.address,
              changes: { account: wallet.address },
            },
          },
        );
        ctx.logger.info(
          { orgId, wallet: wallet.address, txHash: receipt.hash },
          "granted REGISTRAR_ROLE",
        );
      }
      // Every organization's wallet may hold restricted asset types (docs/contracts.md "Compliance controls").
      const allowlisted = await setAllowlisted(
        ctx,
        { address: wallet.address, allowed: true, orgId },
        origin,
      );
      ctx.logger.info(
        { orgId, wallet: wallet.address, txHash: allowlisted.txHash },
        "wallet added to the allowlist",
      );
      if (ctx.isLocalChain && ctx.config.devFaucetAmountWei > 0n) {
        const amount = formatCoin(ctx.config.devFaucetAmountWei);
        try {
          const receipt = await sendOperatorTransaction(
            ctx,
            { to: wallet.address, value: ctx.config.devFaucetAmountWei },
            "the dev faucet",
            {
              origin,
              entry: {
                orgId,
                action: AUDIT_ACTIONS.devFaucetSent,
                target: wallet.address,
                changes: { amount },
              },
            },
          );
          devFaucet = { funded: true, amount, txHash: receipt.hash };
          // The balance watch's first reading is at this block or later, never at the
          // allowlisting block before it, where the wallet held nothing (indexer/balance-watch.ts).
          await tx
            .insert(walletAlerts)
            .values({ orgId, watchFromBlock: receipt.blockNumber, recheck: true });
          ctx.logger.info(
            { orgId, wallet: wallet.address, txHash: receipt.hash },
            "dev faucet funded wallet",
          );
        } catch (error) {
          if (!(error instanceof OperatorFundsError)) throw error;
          devFaucet = { funded: false, amount, reason: error.message };
          ctx.logger.warn(
            { orgId, wallet: wallet.address, reason: error.message },
            "dev faucet skipped: the operator account cannot pay",
          );
        }
      }
      if (input.owner !== undefined) {
        const owner = { email: input.owner.email, role: "owner" as const };
        const invited = await invitePersonIn(
          tx,
          orgId,
          owner,
          "operator",
          origin,
          input.owner.baseUrl,
        );
        ownerInvitation = invited.invitation;
      }
      await appendAudit(tx, origin, {
        orgId,
        action: AUDIT_ACTIONS.orgRegistered,
        target: orgId,
        changes: {
          orgName: input.orgName,
          plan: input.plan,
          scopes,
          walletAddress: wallet.address,
          signerBackend: key.backend,
          keyId,
        },
      });
    }),
  );
  await stored.catch(async (error: unknown) => {
    // The token keeps what it made: destroy the key of a wallet that was never stored.
    await ctx.signers
      .discardKey(key, walletId)
      .catch((err: unknown) => ctx.logger.warn({ err, walletId }, "discarding a key failed"));
    throw error;
  });

  ctx.logger.info(
    { orgId, walletAddress: wallet.address, keyId, plan: input.plan, scopes, signer: key.backend },
    "organization registered",
  );
  return {
    orgId,
    orgName: input.orgName,
    apiKey: apiKey.key,
    keyId,
    walletAddress: wallet.address,
    scopes,
    plan: input.plan,
    ...(devFaucet === undefined ? {} : { devFaucet }),
    ...(ownerInvitation === undefined ? {} : { ownerInvitation }),
  };
}
