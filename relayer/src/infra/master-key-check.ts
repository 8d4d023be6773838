import { eq } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { settings } from "../db/schema/index.js";
import { ConfigError } from "../errors.js";
import type { KeyStore } from "../wallets/key-store.js";

/** `settings` row holding the fingerprint of the master key the database was set up with. */
export const MASTER_KEY_SETTING = "master_key_id";

/**
 * Makes sure MASTER_KEY is the key the database's wallets and webhook secrets were sealed with.
 * The first start records the KeyStore's `keyId` (a non-secret fingerprint); later starts with a
 * different key refuse, because they could neither open the existing envelopes nor should they
 * seal new ones beside them.
 *
 * @returns `"recorded"` on the first start, `"matched"` afterwards
 * @throws ConfigError when MASTER_KEY differs from the recorded key
 */
export async function verifyMasterKey(
  database: Database,
  keyStore: KeyStore,
): Promise<"recorded" | "matched"> {
  // ON CONFLICT DO NOTHING: two processes starting at once both end up comparing one value.
  const inserted = await database.db
    .insert(settings)
    .values({ key: MASTER_KEY_SETTING, value: keyStore.keyId })
    .onConflictDoNothing()
    .returning({ value: settings.value });
  if (inserted.length > 0) return "recorded";
  const [row] = await database.db
    .select()
    .from(settings)
    .where(eq(settings.key, MASTER_KEY_SETTING));
  if (row === undefined || row.value === keyStore.keyId) return "matched";
  throw new ConfigError(
    `MASTER_KEY does not match the key this database was set up with (key id ${row.value}, ` +
      `MASTER_KEY gives ${keyStore.keyId}). Refusing to start: the custodial wallets are sealed ` +
      `under the original key. Start with the original MASTER_KEY (in development: the masterKey ` +
      `saved in DATA_DIR/secrets.json).`,
    { details: { variable: "MASTER_KEY" } },
  );
}
