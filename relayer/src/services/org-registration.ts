import { Contract, Wallet } from "ethers";
import type { AppContext } from "../context.js";
import { apiKeys, orgs, wallets } from "../db/schema/index.js";
import { ValidationError } from "../errors.js";
import { generateApiKey } from "../auth/api-key-format.js";
import { DEFAULT_ORG_SCOPES, sameScopes, type Scope } from "../auth/scopes.js";
import { newId } from "./ids.js";
import { sendOperatorTransaction } from "./operator-transactions.js";
import type { Plan } from "./plan-limits.js";
import { withRpc } from "./rpc-call.js";

/** Validated input of `POST /api/enterprise/register`. */
export interface RegisterOrganizationInput {
  orgName: string;
  /** Only `custodial` exists. */
  walletMode: "custodial";
  /** Undefined means the default scopes. */
  scopes?: Scope[] | undefined;
  plan: Plan;
}

/** Result of a registration. `apiKey` is shown this once and never again. */
export interface RegisteredOrganization {
  orgId: string;
  orgName: string;
  apiKey: string;
  keyId: string;
  walletAddress: string;
  scopes: string[];
  plan: Plan;
}

const REGISTRY_ABI = [
  "function REGISTRAR_ROLE() view returns (bytes32)",
  "function grantRole(bytes32 role, address account)",
] as const;

/**
 * Onboards an organization: creates the org, its custodial wallet (a fresh key pair, the private
 * key sealed by the key store with the wallet id as context) and its first API key, all in one
 * database transaction. Before committing it funds the wallet from the operator account (local
 * chain with a non-zero `devFaucetAmountWei` only) and, for orgs granted `admin:types`, grants the
 * wallet `REGISTRAR_ROLE` on the AssetTypeRegistry; if the chain step fails nothing is stored (a
 * faucet payment already sent to the discarded wallet is lost, which only happens on a dev chain).
 *
 * Custom scopes (anything granting other than the default set) need a paid plan (spec 8).
 *
 * @throws ValidationError for custom scopes on the free plan; RpcUnavailableError when the chain
 *   node is unreachable
 */
export async function registerOrganization(
  ctx: AppContext,
  input: RegisterOrganizationInput,
): Promise<RegisteredOrganization> {
  const scopes = input.scopes === undefined ? [...DEFAULT_ORG_SCOPES] : [...new Set(input.scopes)];
  if (input.plan === "free" && !sameScopes(scopes, DEFAULT_ORG_SCOPES)) {
    throw new ValidationError(
      "Custom scopes are not available on the free plan (use basic, pro or enterprise)",
    );
  }

  const orgId = newId("org");
  const walletId = newId("wal");
  const keyId = newId("key");
  const wallet = Wallet.createRandom();
  const encryptedKey = ctx.keyStore.seal(wallet.privateKey, walletId);
  const apiKey = generateApiKey();
  const isRegistrar = scopes.includes("admin:types");

  await ctx.database.db.transaction(async (tx) => {
    await tx.insert(orgs).values({ id: orgId, name: input.orgName, plan: input.plan, scopes });
    await tx
      .insert(wallets)
      .values({ id: walletId, orgId, address: wallet.address, encryptedKey, isRegistrar });
    await tx.insert(apiKeys).values({
      id: keyId,
      orgId,
      keyHash: apiKey.hash,
      keyPrefix: apiKey.prefix,
      label: "default",
      scopes,
    });
    if (ctx.isLocalChain && ctx.config.devFaucetAmountWei > 0n) {
      const receipt = await sendOperatorTransaction(ctx, {
        to: wallet.address,
        value: ctx.config.devFaucetAmountWei,
      });
      ctx.logger.info(
        { orgId, wallet: wallet.address, txHash: receipt.hash },
        "dev faucet funded wallet",
      );
    }
    if (isRegistrar) {
      const registry = new Contract(ctx.contracts.assetTypeRegistry, REGISTRY_ABI, ctx.provider);
      const role = (await withRpc(() => registry.getFunction("REGISTRAR_ROLE")())) as string;
      const data = registry.interface.encodeFunctionData("grantRole", [role, wallet.address]);
      const receipt = await sendOperatorTransaction(ctx, {
        to: ctx.contracts.assetTypeRegistry,
        data,
      });
      ctx.logger.info(
        { orgId, wallet: wallet.address, txHash: receipt.hash },
        "granted REGISTRAR_ROLE",
      );
    }
  });

  ctx.logger.info(
    { orgId, walletAddress: wallet.address, keyId, plan: input.plan, scopes },
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
  };
}
