import type pg from "pg";
import { inTransaction, type Database } from "../db/client.js";
import { ConfigError } from "../errors.js";
import type { AesGcmKeyStore } from "../wallets/key-store.js";
import { countNotSealedUnder, totalOf, type SealedCounts } from "./master-key-rotation.js";

/** `settings` row holding the fingerprint of the master key new envelopes are sealed under. */
export const MASTER_KEY_SETTING = "master_key_id";
/** `settings` row holding the fingerprint of the key a rotation moves away from, while it runs. */
export const MASTER_KEY_PREVIOUS_SETTING = "master_key_previous_id";
/** `settings` row listing the keys completed rotations retired (JSON array of `RetiredKey`). */
export const MASTER_KEY_RETIRED_SETTING = "master_key_retired";

/** A key a completed rotation retired: never accepted again. */
export interface RetiredKey {
  keyId: string;
  replacedBy: string;
  retiredAt: string;
}

/** What the database records about the master key. */
export interface MasterKeyState {
  current: string | undefined;
  previous: string | undefined;
  retired: RetiredKey[];
}

/** The outcome of `verifyMasterKey`. */
export type MasterKeyCheck =
  | { status: "recorded" }
  | { status: "matched" }
  /** This start began a rotation from `previous` to the current key. */
  | { status: "rotation-started"; previous: string; pending: SealedCounts }
  /** A rotation from `previous` runs; `pending` envelopes are still under it. */
  | { status: "rotating"; previous: string; pending: SealedCounts }
  /** MASTER_KEY_PREVIOUS names a key the completed rotation retired; it was dropped. */
  | { status: "previous-ignored"; previous: string }
  /** A rotation had re-sealed everything but not been marked complete; this start marked it. */
  | { status: "rotation-completed"; previous: string };

// One lock for every change of the master-key settings, held to the end of its transaction, so
// two processes starting at once (or a start and the rotation's completion) take turns.
const LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtext('rwa:master-key'))";

async function readState(client: pg.PoolClient): Promise<MasterKeyState> {
  const { rows } = await client.query<{ key: string; value: string }>(
    "SELECT key, value FROM settings WHERE key = ANY($1::text[])",
    [[MASTER_KEY_SETTING, MASTER_KEY_PREVIOUS_SETTING, MASTER_KEY_RETIRED_SETTING]],
  );
  const value = (key: string) => rows.find((row) => row.key === key)?.value;
  const retired = value(MASTER_KEY_RETIRED_SETTING);
  return {
    current: value(MASTER_KEY_SETTING),
    previous: value(MASTER_KEY_PREVIOUS_SETTING),
    retired: retired === undefined ? [] : (JSON.parse(retired) as RetiredKey[]),
  };
}

async function writeSetting(client: pg.PoolClient, key: string, value: string): Promise<void> {
  await client.query(
    `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, now())
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [key, value],
  );
}

/**
 * The master-key settings as the database records them (read-only).
 *
 * @example
 * const { current, previous } = await readMasterKeyState(database);
 */
export async function readMasterKeyState(database: Database): Promise<MasterKeyState> {
  return inTransaction(database, readState);
}

/** "3 custodial keys and 1 webhook secrets": the kinds with envelopes ("nothing" when none). */
export function describeCounts(counts: SealedCounts): string {
  const some = Object.entries(counts).filter(([, n]) => n > 0);
  if (some.length === 0) return "nothing";
  return some.map(([label, n]) => `${n} ${label}`).join(" and ");
}

/**
 * One line for the start-up output.
 *
 * @example
 * describeMasterKeyCheck({ status: "matched" }) // "matches"
 */
export function describeMasterKeyCheck(check: MasterKeyCheck): string {
  switch (check.status) {
    case "recorded":
      return "recorded (first start)";
    case "matched":
      return "matches";
    case "rotation-started":
    case "rotating":
      return (
        `matches; rotation from key id ${check.previous} ` +
        `${check.status === "rotation-started" ? "started now" : "in progress"}: ` +
        `${describeCounts(check.pending)} still under the previous key; ` +
        "run `npm run rotate-master-key` to finish it"
      );
    case "previous-ignored":
      return `matches; MASTER_KEY_PREVIOUS (key id ${check.previous}) was retired by a completed rotation and is ignored: unset it`;
    case "rotation-completed":
      return `matches; the rotation from key id ${check.previous} had nothing left and is now complete`;
  }
}

const DEV_HINT = "in development: the keys in DATA_DIR/secrets.json";

/**
 * Makes sure the configured master key(s) can open what the database holds, and keeps the
 * database's record of the key in step with a master-key rotation (docs/custody.md, "Rotating the master
 * key"). The first start records the key's fingerprint. A start with MASTER_KEY = a new key and
 * MASTER_KEY_PREVIOUS = the recorded one begins a rotation: from then on new envelopes are sealed
 * under the new key and a process with only the old key is refused. While envelopes remain
 * under the previous key, a start without it is refused with what to run; after the rotation
 * the retired key is refused by name, and a MASTER_KEY_PREVIOUS still set is dropped from
 * `keyStore` (only the new key is accepted).
 *
 * @throws ConfigError saying which key is wrong and what to set or run
 */
export async function verifyMasterKey(
  database: Database,
  keyStore: AesGcmKeyStore,
): Promise<MasterKeyCheck> {
  const key = keyStore.keyId;
  const previousKey = keyStore.previousKeyId;
  const result = await inTransaction(database, async (client): Promise<MasterKeyCheck> => {
    await client.query(LOCK_SQL);
    const state = await readState(client);
    const retiredKey = (id: string | undefined) => state.retired.find((r) => r.keyId === id);

    if (state.current === undefined) {
      await writeSetting(client, MASTER_KEY_SETTING, key);
      return { status: "recorded" };
    }

    if (state.current === key) {
      if (state.previous === undefined) {
        if (previousKey === undefined) return { status: "matched" };
        if (retiredKey(previousKey) !== undefined)
          return { status: "previous-ignored", previous: previousKey };
        throw new ConfigError(
          `MASTER_KEY_PREVIOUS (key id ${previousKey}) is not a key this database was sealed under ` +
            `(MASTER_KEY, key id ${key}, is current and no rotation is running). Unset MASTER_KEY_PREVIOUS.`,
          { details: { variable: "MASTER_KEY_PREVIOUS" } },
        );
      }
      const pending = await countNotSealedUnder(client, key);
      if (previousKey === state.previous)
        return { status: "rotating", previous: state.previous, pending };
      if (previousKey !== undefined) {
        throw new ConfigError(
          `MASTER_KEY_PREVIOUS (key id ${previousKey}) is not the key the running master-key rotation ` +
            `moves away from (key id ${state.previous}). Set MASTER_KEY_PREVIOUS to that key.`,
          { details: { variable: "MASTER_KEY_PREVIOUS" } },
        );
      }
      if (totalOf(pending) === 0) {
        await completeInTransaction(client, state.previous, key);
        return { status: "rotation-completed", previous: state.previous };
      }
      throw new ConfigError(
        `A master-key rotation from key id ${state.previous} to ${key} is half done: ` +
          `${describeCounts(pending)} are still sealed under the previous key. Start with ` +
          `MASTER_KEY_PREVIOUS set to the previous key (${DEV_HINT}) and run ` +
          `\`npm run rotate-master-key\` to finish it.`,
        { details: { variable: "MASTER_KEY_PREVIOUS" } },
      );
    }

    // MASTER_KEY is not the recorded current key.
    if (state.previous !== undefined && key === state.previous) {
      const swapped = previousKey === state.current;
      throw new ConfigError(
        swapped
          ? `MASTER_KEY and MASTER_KEY_PREVIOUS are swapped: MASTER_KEY must be the new key (key id ` +
            `${state.current}) and MASTER_KEY_PREVIOUS the old one (key id ${key}).`
          : `A master-key rotation from key id ${key} to ${state.current} is running, and MASTER_KEY ` +
            `is the old key. Start with MASTER_KEY set to the new key (key id ${state.current}) and ` +
            `MASTER_KEY_PREVIOUS to this one (${DEV_HINT}).`,
        { details: { variable: "MASTER_KEY" } },
      );
    }
    const retired = retiredKey(key);
    if (retired !== undefined) {
      throw new ConfigError(
        `MASTER_KEY (key id ${key}) was retired by a master-key rotation completed at ` +
          `${retired.retiredAt}: every custodial key and webhook secret is now sealed under key id ` +
          `${state.current}. Start with that key (${DEV_HINT}).`,
        { details: { variable: "MASTER_KEY" } },
      );
    }
    if (previousKey !== undefined && previousKey === state.current) {
      if (state.previous !== undefined) {
        throw new ConfigError(
          `A master-key rotation from key id ${state.previous} to ${state.current} is not finished; ` +
            `finish it (\`npm run rotate-master-key\` with MASTER_KEY = key id ${state.current} and ` +
            `MASTER_KEY_PREVIOUS = key id ${state.previous}) before starting another.`,
          { details: { variable: "MASTER_KEY" } },
        );
      }
      const pending = await countNotSealedUnder(client, key);
      await writeSetting(client, MASTER_KEY_PREVIOUS_SETTING, state.current);
      await writeSetting(client, MASTER_KEY_SETTING, key);
      return { status: "rotation-started", previous: state.current, pending };
    }
    throw new ConfigError(
      `MASTER_KEY does not match the key this database was set up with (key id ${state.current}, ` +
        `MASTER_KEY gives ${key}). Refusing to start: the custodial wallets are sealed ` +
        `under the original key. Start with the original MASTER_KEY (in development: the masterKey ` +
        `saved in DATA_DIR/secrets.json); to move to a new key, set MASTER_KEY to the new key and ` +
        `MASTER_KEY_PREVIOUS to the original one (docs/custody.md, "Rotating the master key").`,
      { details: { variable: "MASTER_KEY" } },
    );
  });
  if (
    result.status === "recorded" ||
    result.status === "previous-ignored" ||
    result.status === "rotation-completed"
  ) {
    keyStore.forgetPreviousKey();
  }
  return result;
}

async function completeInTransaction(
  client: pg.PoolClient,
  previous: string,
  current: string,
): Promise<void> {
  const state = await readState(client);
  const retired: RetiredKey[] = [
    ...state.retired.filter((r) => r.keyId !== previous),
    { keyId: previous, replacedBy: current, retiredAt: new Date().toISOString() },
  ];
  await writeSetting(client, MASTER_KEY_RETIRED_SETTING, JSON.stringify(retired));
  await client.query("DELETE FROM settings WHERE key = $1", [MASTER_KEY_PREVIOUS_SETTING]);
}

/**
 * Marks the rotation from `keyStore.previousKeyId` to `keyStore.keyId` complete, provided no
 * envelope is left under another key: the previous key becomes retired (refused by name at
 * start) and is dropped from `keyStore`.
 *
 * @returns the envelopes still not under the current key (all zero when it completed)
 * @throws ConfigError when the database records no such rotation
 */
export async function completeRotation(
  database: Database,
  keyStore: AesGcmKeyStore,
): Promise<{ completed: boolean; pending: SealedCounts }> {
  const outcome = await inTransaction(database, async (client) => {
    await client.query(LOCK_SQL);
    const state = await readState(client);
    if (state.current !== keyStore.keyId || state.previous !== keyStore.previousKeyId) {
      throw new ConfigError(
        `The database records no rotation from key id ${keyStore.previousKeyId ?? "(none)"} to ` +
          `${keyStore.keyId} (current ${state.current ?? "(none)"}, previous ${state.previous ?? "(none)"})`,
      );
    }
    const pending = await countNotSealedUnder(client, keyStore.keyId);
    if (totalOf(pending) > 0) return { completed: false, pending };
    await completeInTransaction(client, state.previous!, state.current);
    return { completed: true, pending };
  });
  if (outcome.completed) keyStore.forgetPreviousKey();
  return outcome;
}
