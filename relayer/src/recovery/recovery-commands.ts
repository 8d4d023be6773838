/**
 * `npm run backup -- --out FILE` and `npm run restore -- FILE [--force]` (entries:
 * relayer/src/backup.ts, relayer/src/restore.ts; docs/recovery.md).
 *
 * Both find the database as every command-line tool does (`DATABASE_URL`, else the embedded
 * PostgreSQL of `DATA_DIR`, joined while the service runs or started for the command), the master
 * key as the service does (`MASTER_KEY`, else in development `DATA_DIR/secrets.json`), and the
 * deployment record and chain as `npm start` does (`RPC_URL` and `DEPLOYMENTS_FILE`, else the
 * embedded chain's record under `DATA_DIR`).
 *
 * A restore checks, before writing anything: the file (truncated, tampered with, sealed to
 * another key), the chain id, the contracts (against the deployment record, or when there is
 * none, against the code on the chain, and then writes the record), the master key's
 * fingerprint, and the migrations; then it migrates an empty database and writes the rows in one
 * transaction. It refuses a database that holds rows unless told `--force`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { getAddress } from "ethers";
import type pg from "pg";
import { PROJECT_ROOT } from "../../../deploy/artifacts.js";
import { loadDeployment, parseDeployment } from "../../../deploy/deployment-file.js";
import { rpcRequest } from "../../../deploy/rpc.js";
import { parseEnv, TARGET_CHAIN_ID } from "../config.js";
import { runMigrations } from "../db/migrate.js";
import { appendAudit, SYSTEM_ORIGIN } from "../audit/audit-writer.js";
import { AUDIT_ACTIONS } from "../domain/audit.js";
import { RpcClient } from "../chain/rpc/rpc-client.js";
import { reindexReadModel, type ReindexProgress } from "../indexer/reindex.js";
import { createLogger } from "../logger.js";
import { ConfigError } from "../errors.js";
import { openCliDatabase } from "../infra/cli-database.js";
import { readDevSecrets } from "../infra/dev-secrets.js";
import { masterKeyId } from "../wallets/key-store.js";
import { openBackup, sealBackup, type Sealing } from "./backup-file.js";
import { appliedMigrations, countRows, restoreSnapshot, takeSnapshot } from "./snapshot.js";

interface CommandIo {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  print: (line: string) => void;
  printError: (line: string) => void;
}

interface Where {
  masterKey: string | undefined;
  rpcUrl: string;
  deploymentFile: string;
}

async function where(env: NodeJS.ProcessEnv): Promise<Where> {
  const settings = parseEnv(env);
  let masterKey = settings.masterKey?.toLowerCase();
  if (masterKey === undefined && settings.nodeEnv !== "production") {
    masterKey = (await readDevSecrets(settings.dataDir)).masterKey;
  }
  const embedded = settings.rpcUrl === undefined;
  return {
    masterKey,
    rpcUrl: settings.rpcUrl ?? `http://127.0.0.1:${settings.anvilPort}`,
    deploymentFile: embedded
      ? path.join(settings.dataDir, "deployments", `${TARGET_CHAIN_ID}.json`)
      : (settings.deploymentsFile ??
        path.join(PROJECT_ROOT, "deployments", `${TARGET_CHAIN_ID}.json`)),
  };
}

/** `BACKUP_IDENTITY`: an age identity (AGE-SECRET-KEY-1…), or the path of a file holding them. */
function identities(env: NodeJS.ProcessEnv): string[] {
  const value = parseEnv(env).backupIdentity;
  if (value === undefined) return [];
  const text = value.startsWith("AGE-SECRET-KEY-") ? value : readFileSync(value, "utf8");
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.startsWith("AGE-SECRET-KEY-"));
}

async function chainHead(rpcUrl: string): Promise<{ number: number; hash: string } | null> {
  try {
    const block = await rpcRequest<{ number: string; hash: string }>(
      rpcUrl,
      "eth_getBlockByNumber",
      ["latest", false],
      5_000,
    );
    return { number: Number(BigInt(block.number)), hash: block.hash };
  } catch {
    return null;
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

async function backup(io: CommandIo): Promise<void> {
  const { values } = parseArgs({
    args: [...io.argv],
    options: { out: { type: "string" } },
    strict: true,
  });
  if (values.out === undefined)
    throw new ConfigError("Missing --out FILE: where to write the backup");
  if (existsSync(values.out)) throw new ConfigError(`${values.out} exists: not written over`);
  const place = await where(io.env);
  const to = parseEnv(io.env).backupRecipients;
  if (place.masterKey === undefined) {
    throw new ConfigError(
      "Missing MASTER_KEY: the backup records which key seals the custodial keys",
    );
  }
  const sealing: Sealing =
    to.length > 0
      ? { kind: "age", recipients: to }
      : { kind: "master-key", masterKey: place.masterKey };
  let deployment: Record<string, unknown>;
  try {
    deployment = JSON.parse(readFileSync(place.deploymentFile, "utf8")) as Record<string, unknown>;
    parseDeployment(deployment, place.deploymentFile);
  } catch (cause) {
    throw new ConfigError(`No usable deployment record at ${place.deploymentFile}`, { cause });
  }
  const started = Date.now();
  const head = await chainHead(place.rpcUrl);
  if (head === null)
    io.printError(
      `warning: the chain at ${place.rpcUrl} did not answer; the backup records no chain head`,
    );
  const cli = await openCliDatabase(io.env);
  try {
    io.print(`Backing up ${cli.where}`);
    const client = await cli.database.pool.connect();
    let snapshot;
    try {
      let rows = 0;
      snapshot = await takeSnapshot(client, (table, n) => {
        rows += n;
        io.print(
          `  ${table}: ${n} rows (${rows} so far, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
        );
      });
    } finally {
      client.release();
    }
    const file = await sealBackup(
      {
        format: "rwa-backup",
        version: 1,
        createdAt: new Date().toISOString(),
        masterKeyId: masterKeyId(place.masterKey),
        chainId: TARGET_CHAIN_ID,
        deployment,
        chainHead: head,
        migrations: snapshot.migrations,
        tables: snapshot.tables,
      },
      snapshot.payload,
      sealing,
    );
    mkdirSync(path.dirname(path.resolve(values.out)), { recursive: true });
    writeFileSync(values.out, file, { mode: 0o600, flag: "wx" });
    const rows = snapshot.tables.reduce((sum, t) => sum + t.rows, 0);
    // Audited once the file is written (after the snapshot: the next backup holds this row).
    await appendAudit(cli.database.db, SYSTEM_ORIGIN, {
      orgId: null,
      action: AUDIT_ACTIONS.backupTaken,
      target: path.basename(values.out),
      changes: {
        rows,
        tables: snapshot.tables.length,
        bytes: file.length,
        sealing: sealing.kind,
        chainHead: head === null ? null : head.number,
      },
    });
    io.print(
      `Wrote ${values.out}: ${rows} rows of ${snapshot.tables.length} tables, ${megabytes(file.length)}, ` +
        `${sealing.kind === "age" ? `sealed to ${to.length} age recipient(s)` : `sealed under master key ${masterKeyId(place.masterKey)}`}, ` +
        `chain head ${head === null ? "unknown" : `#${head.number}`}, in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    await cli.close();
  }
}

async function restore(io: CommandIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args: [...io.argv],
    options: { force: { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  const [name] = positionals;
  if (name === undefined || positionals.length > 1)
    throw new ConfigError("Give one backup file: npm run restore -- FILE");
  let bytes: Buffer;
  try {
    bytes = readFileSync(name);
  } catch (cause) {
    throw new ConfigError(`Cannot read ${name}`, { cause });
  }
  const place = await where(io.env);
  const { header, payload } = await openBackup(
    bytes,
    name,
    { masterKey: place.masterKey, identities: identities(io.env) },
    masterKeyId,
  );
  // The chain.
  if (header.chainId !== TARGET_CHAIN_ID) {
    throw new ConfigError(
      `${name} is from chain ${header.chainId}; this service runs on chain ${TARGET_CHAIN_ID}`,
    );
  }
  let liveChainId: string;
  try {
    liveChainId = await rpcRequest<string>(place.rpcUrl, "eth_chainId", [], 5_000);
  } catch (cause) {
    throw new ConfigError(
      `The chain at ${place.rpcUrl} did not answer: a restore checks the backup against it (start the chain first)`,
      { cause },
    );
  }
  if (Number(BigInt(liveChainId)) !== header.chainId) {
    throw new ConfigError(
      `${name} is from chain ${header.chainId}; the node at ${place.rpcUrl} is chain ${Number(BigInt(liveChainId))}`,
    );
  }
  // The deployment.
  const theirs = parseDeployment(header.deployment, `${name}'s deployment record`);
  if (existsSync(place.deploymentFile)) {
    const ours = await loadDeployment(place.deploymentFile);
    for (const contract of ["assetTypeRegistry", "assetToken", "marketplace"] as const) {
      if (getAddress(ours.addresses[contract]) !== getAddress(theirs.addresses[contract])) {
        throw new ConfigError(
          `${name} is from another deployment: its ${contract} is ${getAddress(theirs.addresses[contract])}, this service's (${place.deploymentFile}) is ${getAddress(ours.addresses[contract])}`,
        );
      }
    }
  } else {
    const code = await rpcRequest<string>(
      place.rpcUrl,
      "eth_getCode",
      [theirs.addresses.assetToken, "latest"],
      5_000,
    );
    if (code === "0x") {
      throw new ConfigError(
        `${name} is from another deployment: no contract at its AssetToken ${getAddress(theirs.addresses.assetToken)} on ${place.rpcUrl}`,
      );
    }
  }
  // The master key.
  if (place.masterKey === undefined)
    throw new ConfigError(
      "Missing MASTER_KEY: the key the backup's custodial keys are sealed under",
    );
  if (masterKeyId(place.masterKey) !== header.masterKeyId) {
    throw new ConfigError(
      `${name}'s custodial keys are sealed under master key ${header.masterKeyId}; MASTER_KEY is ${masterKeyId(place.masterKey)}`,
    );
  }
  const cli = await openCliDatabase(io.env);
  try {
    await runMigrations(cli.database);
    const client = await cli.database.pool.connect();
    try {
      const ours = await appliedMigrations(client);
      if (ours.count !== header.migrations.count || ours.lastHash !== header.migrations.lastHash) {
        throw new ConfigError(
          `${name} was taken at migration ${header.migrations.count}; this release's database is at ${ours.count}: restore with the release that took it, then upgrade`,
        );
      }
      const present = await countRows(client);
      if (present.length > 0 && values.force !== true) {
        const rows = present.reduce((sum, t) => sum + t.rows, 0);
        const tables = present.map((t) => `${t.name} ${t.rows}`).join(", ");
        throw new ConfigError(
          `${cli.where} holds ${rows} rows (${tables}): not restored over (add --force to replace them)`,
        );
      }
      io.print(
        `Restoring ${name} (taken ${header.createdAt}, chain head #${header.chainHead?.number ?? "unknown"}) into ${cli.where}`,
      );
      const started = Date.now();
      let rows = 0;
      // Every custodial wallet is reconciled with the chain from the backup's head before the
      // service takes its writes (engine/chain-reconciler.ts): listed in the same transaction.
      const reconcileFrom = header.chainHead?.number ?? Number(header.deployment.blockNumber ?? 0);
      await restoreSnapshot(client, payload, {
        progress: (table, n) => {
          rows += n;
          io.print(`  ${table}: ${n} rows (${rows} so far)`);
        },
        finish: async (tx) => {
          await tx.query(`DELETE FROM chain_reconciliations`);
          await tx.query(
            `INSERT INTO chain_reconciliations (wallet_id, from_block, reason)
             SELECT id, $1, 'restore' FROM wallets`,
            [reconcileFrom],
          );
          // Appended to the restored log (its chain goes on from the backup's last row), last.
          await appendAudit(tx as pg.PoolClient, SYSTEM_ORIGIN, {
            orgId: null,
            action: AUDIT_ACTIONS.backupRestored,
            target: path.basename(name),
            changes: {
              takenAt: header.createdAt,
              chainHead: header.chainHead?.number ?? null,
              rows,
              force: values.force === true,
            },
          });
        },
      });
      if (!existsSync(place.deploymentFile)) {
        mkdirSync(path.dirname(place.deploymentFile), { recursive: true });
        writeFileSync(place.deploymentFile, `${JSON.stringify(header.deployment, null, 2)}\n`);
        io.print(`  wrote the deployment record to ${place.deploymentFile}`);
      }
      io.print(`Restored ${rows} rows in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
      const ahead = await walletsAhead(client, place.rpcUrl);
      if (ahead.length > 0) {
        const sent = ahead.reduce((sum, w) => sum + w.unknown, 0);
        io.print(
          `${ahead.length} wallet(s) sent ${sent} transaction(s) after this backup ` +
            `(${ahead
              .slice(0, 5)
              .map((w) => `${w.address}: ${w.unknown}`)
              .join(", ")}${ahead.length > 5 ? ", …" : ""}): their writes are rebuilt from the ` +
            `chain when the service starts, before it takes writes (docs/recovery.md).`,
        );
      } else {
        io.print("Every custodial wallet's nonce on chain matches the restored rows.");
      }
      io.print("Start the service: npm start");
    } finally {
      client.release();
    }
  } finally {
    await cli.close();
  }
}

/**
 * Custodial wallets whose nonce on chain is ahead of what the restored rows know: they sent
 * transactions after the backup.
 */
async function walletsAhead(
  client: pg.ClientBase,
  rpcUrl: string,
): Promise<Array<{ address: string; unknown: number }>> {
  const wallets = (
    await client.query<{ address: string; next_nonce: string | null }>(
      `SELECT address, next_nonce::text AS next_nonce FROM wallets ORDER BY address`,
    )
  ).rows;
  const ahead: Array<{ address: string; unknown: number }> = [];
  for (const wallet of wallets) {
    const count = await rpcRequest<string>(
      rpcUrl,
      "eth_getTransactionCount",
      [wallet.address, "latest"],
      5_000,
    );
    const onChain = Number(BigInt(count));
    const known = Number(wallet.next_nonce ?? 0);
    if (onChain > known) ahead.push({ address: wallet.address, unknown: onChain - known });
  }
  return ahead;
}

async function run(
  io: CommandIo,
  body: (io: CommandIo) => Promise<void>,
  name: string,
): Promise<number> {
  try {
    await body(io);
    return 0;
  } catch (error) {
    if (error instanceof ConfigError) {
      io.printError(`${name}: ${error.message}`);
      return 1;
    }
    if (
      error instanceof TypeError &&
      "code" in error &&
      String(error.code).startsWith("ERR_PARSE_ARGS")
    ) {
      io.printError(`${name}: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

/** `npm run backup -- --out FILE`; the exit code. */
export function backupCommand(io: CommandIo): Promise<number> {
  return run(io, backup, "backup");
}

/** `npm run restore -- FILE [--force]`; the exit code. */
export function restoreCommand(io: CommandIo): Promise<number> {
  return run(io, restore, "restore");
}

/**
 * `npm run reindex`: rebuilds every indexed table from the deployment block while the service
 * runs (`indexer/reindex.ts`), printing the progress (a bar, blocks per second) once a second.
 */
async function reindex(io: CommandIo): Promise<void> {
  parseArgs({ args: [...io.argv], options: {}, allowPositionals: false, strict: true });
  const place = await where(io.env);
  let deployment;
  try {
    deployment = await loadDeployment(place.deploymentFile);
  } catch (cause) {
    throw new ConfigError(`No usable deployment record at ${place.deploymentFile}`, { cause });
  }
  const contracts = { ...deployment.addresses, deployBlock: deployment.blockNumber };
  const cli = await openCliDatabase(io.env);
  const rpc = new RpcClient(place.rpcUrl);
  try {
    const connectionString = (cli.database.pool.options as { connectionString?: string })
      .connectionString!;
    io.print(
      `Rebuilding the read model of ${cli.where} from block ${contracts.deployBlock} (reads answer from the current tables until the new ones catch up)`,
    );
    const report = await reindexReadModel({
      database: cli.database,
      connectionString,
      rpc,
      contracts,
      logger: createLogger({ level: "warn", base: { service: "reindex" } }),
      progress: (p) => io.print(progressLine(p)),
    });
    const rows = Object.entries(report.rows)
      .filter(([, n]) => n > 0)
      .map(([t, n]) => `${t} ${n}`)
      .join(", ");
    io.print(
      `Rebuilt ${report.blocks} blocks in ${report.seconds.toFixed(1)} s ` +
        `(${Math.round(report.blocks / Math.max(report.seconds, 0.001))} blocks/s); swapped in at block ${report.swappedAt}: ${rows}`,
    );
  } finally {
    await cli.close();
  }
}

/** `[#####.....]  42% block 4200 of 10000, 1234 blocks/s`. */
function progressLine(p: ReindexProgress): string {
  const span = Math.max(1, p.head - p.deployBlock);
  const share = Math.min(1, Math.max(0, (p.block - p.deployBlock) / span));
  const width = 30;
  const done = Math.round(share * width);
  return `  [${"#".repeat(done)}${".".repeat(width - done)}] ${Math.round(share * 100)
    .toString()
    .padStart(3)}% block ${p.block} of ${p.head}, ${Math.round(p.blocksPerSecond)} blocks/s`;
}

/** `npm run reindex`; the exit code. */
export function reindexCommand(io: CommandIo): Promise<number> {
  return run(io, reindex, "reindex");
}
