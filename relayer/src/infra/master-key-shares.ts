/**
 * The command behind `npm run master-key` (entry: relayer/src/master-key.ts): splits the master
 * key into Shamir shares and rebuilds it from them (docs/recovery.md, "The master key"), so that
 * the key that seals every custodial key survives the loss of any one machine or person, and no
 * one person holds it.
 *
 * - `split --shares N --threshold T` prints N shares, one per line, any T of which rebuild the
 *   key. The key is MASTER_KEY, or in development the one in DATA_DIR/secrets.json. Nothing is
 *   written to disk.
 * - `combine [--out FILE]` reads shares (one per line, from standard input or `--share` options),
 *   checks them and rebuilds the key. It prints the key, or with `--out` writes it to FILE
 *   (mode 0600, never over an existing file).
 *
 * The splitting is `shamir-secret-sharing` (Privy's audited implementation over GF(2^8)). A share
 * reads `rwa-mks1-<key id>-<T>of<N>-<share, base64url>-<check>`: the key id is the master key's
 * fingerprint (the one the key store records, `masterKeyId`), so shares of different keys never
 * mix; the check (4 hex digits of a SHA-256 over the rest) catches a share mistyped when copied
 * from paper. A rebuilt key is accepted only when its fingerprint is the one its shares name.
 */
import { createHash } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { combine, split } from "shamir-secret-sharing";
import { parseEnv } from "../config.js";
import { ConfigError } from "../errors.js";
import { masterKeyId } from "../wallets/key-store.js";
import { readDevSecrets, SECRETS_FILE_NAME } from "./dev-secrets.js";

const PREFIX = "rwa-mks1";
const SHARE_RE = /^rwa-mks1-([0-9a-f]{16})-(\d{1,3})of(\d{1,3})-([A-Za-z0-9_-]+)-([0-9a-f]{4})$/;

/** One share as printed. */
export interface ParsedShare {
  keyId: string;
  threshold: number;
  shares: number;
  bytes: Uint8Array;
}

function checkOf(body: string): string {
  return createHash("sha256").update(body).digest("hex").slice(0, 4);
}

/** Splits a master key (64 hex characters) into `shares` printable shares, `threshold` of which rebuild it. */
export async function splitMasterKey(
  masterKeyHex: string,
  shares: number,
  threshold: number,
): Promise<string[]> {
  const keyId = masterKeyId(masterKeyHex);
  const parts = await split(new Uint8Array(Buffer.from(masterKeyHex, "hex")), shares, threshold);
  return parts.map((part) => {
    const body = `${PREFIX}-${keyId}-${threshold}of${shares}-${Buffer.from(part).toString("base64url")}`;
    return `${body}-${checkOf(body)}`;
  });
}

/** Parses one printed share; `label` names it in errors ("share 2"). */
export function parseShare(text: string, label: string): ParsedShare {
  const match = SHARE_RE.exec(text.trim());
  if (match === null) {
    throw new ConfigError(
      `${label} is not a master-key share (expected ${PREFIX}-<key id>-<T>of<N>-<share>-<check>)`,
    );
  }
  const [, keyId, t, n, encoded, check] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const body = text.trim().slice(0, -(check.length + 1));
  if (checkOf(body) !== check) {
    throw new ConfigError(`${label} fails its check: a character was mistyped or lost`);
  }
  const bytes = Buffer.from(encoded, "base64url");
  if (bytes.length !== 33)
    throw new ConfigError(`${label} has the wrong length for a master-key share`);
  return { keyId, threshold: Number(t), shares: Number(n), bytes: new Uint8Array(bytes) };
}

/** Rebuilds the master key (64 hex characters) from printed shares, checking them first. */
export async function combineMasterKey(texts: readonly string[]): Promise<string> {
  if (texts.length === 0) throw new ConfigError("No shares given");
  const parsed = texts.map((text, i) => parseShare(text, `share ${i + 1}`));
  const first = parsed[0]!;
  for (const [i, share] of parsed.entries()) {
    if (share.keyId !== first.keyId) {
      throw new ConfigError(
        `share ${i + 1} belongs to another master key (key id ${share.keyId}, share 1's is ${first.keyId})`,
      );
    }
    if (share.threshold !== first.threshold || share.shares !== first.shares) {
      throw new ConfigError(
        `share ${i + 1} is from another split (${share.threshold}of${share.shares})`,
      );
    }
  }
  const distinct = new Map(parsed.map((share) => [share.bytes[share.bytes.length - 1], share]));
  if (distinct.size !== parsed.length) throw new ConfigError("The same share was given twice");
  if (distinct.size < first.threshold) {
    throw new ConfigError(
      `${distinct.size} of the ${first.threshold} shares needed (${first.threshold}of${first.shares}): give ${first.threshold - distinct.size} more`,
    );
  }
  const key = Buffer.from(await combine(parsed.map((share) => share.bytes))).toString("hex");
  if (masterKeyId(key) !== first.keyId) {
    throw new ConfigError("The shares do not rebuild the key they were split from");
  }
  return key;
}

interface CommandIo {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Standard input's text, read only when `combine` is given no `--share`. */
  readStdin: () => Promise<string>;
  print: (line: string) => void;
  printError: (line: string) => void;
}

const USAGE = [
  "usage: npm run master-key -- split --shares N --threshold T",
  "       npm run master-key -- combine [--share S ...] [--out FILE]   (shares on standard input, one per line, without --share)",
].join("\n");

function count(value: string | undefined, name: string): number {
  if (value === undefined) throw new ConfigError(`Missing --${name}\n${USAGE}`);
  if (!/^\d{1,3}$/.test(value) || Number(value) < 2 || Number(value) > 255) {
    throw new ConfigError(`--${name} must be a whole number from 2 to 255`);
  }
  return Number(value);
}

/** The master key to split: MASTER_KEY, else (development) DATA_DIR/secrets.json's. */
async function currentMasterKey(env: NodeJS.ProcessEnv): Promise<string> {
  const settings = parseEnv(env);
  if (settings.masterKey !== undefined) return settings.masterKey.toLowerCase();
  if (settings.nodeEnv === "production")
    throw new ConfigError("Missing MASTER_KEY: the key to split");
  const key = (await readDevSecrets(settings.dataDir)).masterKey;
  if (key === undefined) {
    const file = path.join(settings.dataDir, SECRETS_FILE_NAME);
    throw new ConfigError(`Missing MASTER_KEY, and no development key in ${file}`);
  }
  return key;
}

/** Runs `npm run master-key -- ...`; the exit code (0 done, 1 refused, 2 usage). */
export async function masterKeyCommand(io: CommandIo): Promise<number> {
  const [verb, ...rest] = io.argv;
  try {
    if (verb === "split") {
      const { values } = parseArgs({
        args: rest,
        options: { shares: { type: "string" }, threshold: { type: "string" } },
        strict: true,
      });
      const shares = count(values.shares, "shares");
      const threshold = count(values.threshold, "threshold");
      if (threshold > shares) throw new ConfigError("--threshold cannot exceed --shares");
      const key = await currentMasterKey(io.env);
      const printed = await splitMasterKey(key, shares, threshold);
      io.printError(
        `Master key ${masterKeyId(key)} split into ${shares} shares; any ${threshold} rebuild it. Give each to a different keeper; nothing was written to disk.`,
      );
      for (const line of printed) io.print(line);
      return 0;
    }
    if (verb === "combine") {
      const { values } = parseArgs({
        args: rest,
        options: { share: { type: "string", multiple: true }, out: { type: "string" } },
        strict: true,
      });
      const texts =
        values.share ??
        (await io.readStdin())
          .split(/\r?\n/)
          .map((line) => line.trim())
          .filter((line) => line !== "" && !line.startsWith("#"));
      const key = await combineMasterKey(texts);
      if (values.out !== undefined) {
        if (existsSync(values.out)) throw new ConfigError(`${values.out} exists: not written over`);
        writeFileSync(values.out, `${key}\n`, { mode: 0o600, flag: "wx" });
        io.printError(
          `Master key ${masterKeyId(key)} rebuilt and written to ${values.out} (mode 0600)`,
        );
      } else {
        io.printError(`Master key ${masterKeyId(key)} rebuilt:`);
        io.print(key);
      }
      return 0;
    }
    io.printError(USAGE);
    return 2;
  } catch (error) {
    if (error instanceof ConfigError) {
      io.printError(`master-key: ${error.message}`);
      return 1;
    }
    if (
      error instanceof TypeError &&
      "code" in error &&
      String(error.code).startsWith("ERR_PARSE_ARGS")
    ) {
      io.printError(`master-key: ${error.message}\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}
