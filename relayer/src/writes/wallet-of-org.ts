import { eq } from "drizzle-orm";
import type { OrgWalletRef } from "../chain/tx-store.js";
import type { Database } from "../db/client.js";
import { wallets } from "../db/schema/index.js";
import { NotFoundError } from "../errors.js";

/** The org's custodial wallet (id and address; the sealed key stays in the engine's hands). */
export type OrgWallet = OrgWalletRef;

/** Loads an org's wallet. */
export async function walletOfOrg(database: Database, orgId: string): Promise<OrgWallet> {
  const [row] = await database.db
    .select({ id: wallets.id, orgId: wallets.orgId, address: wallets.address })
    .from(wallets)
    .where(eq(wallets.orgId, orgId));
  if (row === undefined) throw new NotFoundError("Wallet not found");
  return row;
}
