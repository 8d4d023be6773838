/**
 * The command behind `npm run rotate-master-key` (entry: relayer/src/rotate-master-key.ts): re-seals every custodial key and webhook secret from the previous
 * master key to the new one while the service runs (docs/custody.md, "Rotating the master key").
 *
 * Keys: MASTER_KEY (the new key) and MASTER_KEY_PREVIOUS (the old one), the same two variables
 * every relayer process runs with during the rotation. In development, with MASTER_KEY unset, the
 * keys are those of DATA_DIR/secrets.json: the first run generates the new key there (keeping the
 * old one as `masterKeyPrevious`) and asks for a restart of `npm start`; the second run re-seals,
 * and drops `masterKeyPrevious` from the file when done.
 *
 * Options: `--batch-size N` (rows per committed batch, default 100); `--pause-after-batches N`
 * (test hook: after N committed batches, print a line and wait to be killed).
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { parseEnv } from "../config.js";
import { createDatabase, type Database } from "../db/client.js";
import { ConfigError } from "../errors.js";
import { AesGcmKeyStore, masterKeyId } from "../wallets/key-store.js";
import { ensureDevSecrets, updateDevSecrets } from "./dev-secrets.js";
import { embeddedPostgresUrl } from "./embedded-postgres.js";
import { completeRotation, describeCounts, verifyMasterKey } from "./master-key-check.js";
import { resealAll } from "./master-key-rotation.js";
import { redactUrl } from "../shared/redact-url.js";

/** Where the keys and the database come from. */
interface Source {
  current: string;
  previous: string | undefined;
  databaseUrl: string;
  /** DATA_DIR when the keys come from the development secrets file. */
  devDataDir: string | undefined;
}

function positiveInt(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new ConfigError(`--${name} must be a positive integer`);
  return Number(value);
}

/** The keys and database, or undefined when this run only prepared a development rotation. */
async function resolveSource(
  env: NodeJS.ProcessEnv,
  print: (line: string) => void,
): Promise<Source | undefined> {
  const settings = parseEnv(env);
  if (settings.masterKey !== undefined) {
    if (settings.databaseUrl === undefined)
      throw new ConfigError("Missing DATABASE_URL: the database whose envelopes to re-seal");
    return {
      current: settings.masterKey,
      previous: settings.masterKeyPrevious,
      databaseUrl: settings.databaseUrl,
      devDataDir: undefined,
    };
  }
  if (settings.masterKeyPrevious !== undefined) {
    throw new ConfigError(
      "Invalid MASTER_KEY_PREVIOUS: set it together with MASTER_KEY (the new key) during a master-key rotation",
    );
  }
  if (settings.nodeEnv === "production") {
    throw new ConfigError(
      "Missing MASTER_KEY: set MASTER_KEY to the new key and MASTER_KEY_PREVIOUS to the old one",
    );
  }
  // Development: the keys of DATA_DIR/secrets.json.
  const { file, secrets } = await ensureDevSecrets(settings.dataDir, []);
  if (secrets.masterKey === undefined) {
    throw new ConfigError(
      `No master key in ${file}: nothing was ever sealed here (start the service once first)`,
    );
  }
  if (secrets.masterKeyPrevious === undefined) {
    const next = randomBytes(32).toString("hex");
    const old = secrets.masterKey;
    await updateDevSecrets(settings.dataDir, (s) => ({
      ...s,
      masterKey: next,
      masterKeyPrevious: old,
    }));
    print(
      `Generated a new master key (key id ${masterKeyId(next)}) in ${file}; the old one (key id ` +
        `${masterKeyId(old)}) is kept there as masterKeyPrevious.`,
    );
    print(
      "Next: restart `npm start` (it then opens both keys and seals new secrets under the new one), " +
        "then run `npm run rotate-master-key` again to re-seal what is stored.",
    );
    return undefined;
  }
  const databaseUrl =
    settings.databaseUrl ??
    (await embeddedPostgresUrl(settings.dataDir, secrets.postgresPassword ?? ""));
  return {
    current: secrets.masterKey,
    previous: secrets.masterKeyPrevious,
    databaseUrl,
    devDataDir: settings.dataDir,
  };
}

async function rotate(
  database: Database,
  source: Source,
  argv: readonly string[],
  print: (line: string) => void,
): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      "batch-size": { type: "string" },
      "pause-after-batches": { type: "string" },
    },
  });
  const batchSize = positiveInt(values["batch-size"], "batch-size") ?? 100;
  const pauseAfter = positiveInt(values["pause-after-batches"], "pause-after-batches");

  if (source.previous === undefined) {
    throw new ConfigError(
      "Missing MASTER_KEY_PREVIOUS: set MASTER_KEY to the new key and MASTER_KEY_PREVIOUS to the " +
        "old one (the key the database is sealed under now)",
    );
  }
  const keyStore = new AesGcmKeyStore(source.current, source.previous);
  const check = await verifyMasterKey(database, keyStore);
  if (check.status === "previous-ignored" || check.status === "recorded") {
    print(`Nothing to do: the database is sealed under key id ${keyStore.keyId} only.`);
    await dropDevPrevious(source, print);
    return;
  }
  if (check.status === "rotation-completed") {
    print(`The rotation from key id ${check.previous} to ${keyStore.keyId} is complete.`);
    await dropDevPrevious(source, print);
    return;
  }
  if (check.status === "matched") return; // not reached: verifyMasterKey refuses an unknown previous key
  if (check.status === "rotation-started") {
    print(
      `Began the rotation from key id ${check.previous} to ${keyStore.keyId}. Every relayer process ` +
        "must run with MASTER_KEY (new) and MASTER_KEY_PREVIOUS (old) from now on.",
    );
  }
  print(
    `Re-sealing ${describeCounts(check.pending)} from key id ${check.previous} to ${keyStore.keyId} ` +
      `in batches of ${batchSize} (database ${redactUrl(source.databaseUrl)})`,
  );
  const result = await resealAll(database, keyStore, {
    batchSize,
    onBatch: async (progress) => {
      print(
        `  batch ${progress.batch}: ${progress.resealed} ${progress.label} re-sealed ` +
          `(${progress.done[progress.label]}/${progress.total[progress.label]})`,
      );
      if (pauseAfter !== undefined && progress.batch >= pauseAfter) {
        print(`  paused after batch ${progress.batch} (--pause-after-batches)`);
        await new Promise<never>(() => setInterval(() => {}, 60_000));
      }
    },
  });
  const done = await completeRotation(database, keyStore);
  if (!done.completed) {
    throw new ConfigError(
      `${describeCounts(done.pending)} appeared under another key after the last pass; run ` +
        "`npm run rotate-master-key` again",
    );
  }
  print(
    `Rotation complete: ${describeCounts(result.resealed)} re-sealed in ${result.batches} ` +
      `batch(es). Key id ${check.previous} is retired and refused from now on; unset ` +
      "MASTER_KEY_PREVIOUS at the next restart (until then it is ignored).",
  );
  await dropDevPrevious(source, print);
}

/** Development: the secrets file no longer needs the retired key. */
async function dropDevPrevious(source: Source, print: (line: string) => void): Promise<void> {
  if (source.devDataDir === undefined) return;
  const { file } = await updateDevSecrets(
    source.devDataDir,
    ({ masterKeyPrevious: _, ...rest }) => rest,
  );
  print(`Removed masterKeyPrevious from ${file}.`);
}

/** Options of `rotateMasterKeyCommand`. */
export interface RotateMasterKeyCommandOptions {
  /** Command-line arguments after the script (`--batch-size N`, `--pause-after-batches N`). */
  argv: readonly string[];
  /** The environment (MASTER_KEY, MASTER_KEY_PREVIOUS, DATABASE_URL, DATA_DIR, NODE_ENV). */
  env: NodeJS.ProcessEnv;
  /** Progress and result lines. */
  print: (line: string) => void;
  /** The failure line (`Master-key rotation failed: ...`); default `print`. */
  printError?: (line: string) => void;
}

/**
 * Runs the rotation command once.
 *
 * @returns the process exit code: 0 done (or prepared, in development), 1 failed (printed)
 * @example
 * process.exitCode = await rotateMasterKeyCommand({ argv: process.argv.slice(2), env: process.env, print: console.log });
 */
export async function rotateMasterKeyCommand(
  options: RotateMasterKeyCommandOptions,
): Promise<number> {
  const { print } = options;
  let database: Database | undefined;
  try {
    const source = await resolveSource(options.env, print);
    if (source === undefined) return 0;
    database = createDatabase(source.databaseUrl, {
      max: 2,
      applicationName: "rwa-rotate-master-key",
    });
    await rotate(database, source, options.argv, print);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The embedded PostgreSQL of development runs only while `npm start` does.
    const hint =
      (error as { code?: unknown }).code === "ECONNREFUSED"
        ? " (is the database up? In development the embedded PostgreSQL runs with `npm start`)"
        : "";
    (options.printError ?? print)(`Master-key rotation failed: ${message}${hint}`);
    return 1;
  } finally {
    await database?.close();
  }
}
