/**
 * The backup file (docs/recovery.md): one plaintext header line saying what the backup is and how
 * it is sealed, then the sealed payload.
 *
 * - Sealed under the master key (the default): AES-256-GCM under a key derived from the master
 *   key (HKDF-SHA256, its own label), the header line as additional data. Whoever can run the
 *   service can read its backups.
 * - Sealed to age recipients (`BACKUP_RECIPIENTS`, the `age-encryption` package): a machine that
 *   only writes backups cannot read them; restoring needs an identity (`BACKUP_IDENTITY`).
 *
 * The payload (gzip) starts with a copy of the header, so a header changed in the file is caught
 * in either mode. A restore reads the whole file and opens it before writing anything: a file
 * that is truncated, tampered with or sealed to another key is refused with nothing written.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { gunzipSync, gzipSync } from "node:zlib";
import { Decrypter, Encrypter } from "age-encryption";
import { z } from "zod";
import { ConfigError } from "../errors.js";

export const BACKUP_FORMAT = "rwa-backup";
export const BACKUP_VERSION = 1;

export const backupHeaderSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(BACKUP_VERSION),
  createdAt: z.iso.datetime(),
  /** How the payload is sealed: under the master key, or to age recipients. */
  sealing: z.enum(["master-key", "age"]),
  /** The fingerprint of the master key the database's secrets are sealed under (`masterKeyId`). */
  masterKeyId: z.string().regex(/^[0-9a-f]{16}$/),
  chainId: z.number().int().positive(),
  /** The deployment record the database belongs to, as `deployments/<chainId>.json` holds it. */
  deployment: z.record(z.string(), z.unknown()),
  /** The chain's head when the snapshot was taken (null when the chain could not be reached). */
  chainHead: z.object({ number: z.number().int().nonnegative(), hash: z.string() }).nullable(),
  /** The migrations applied to the database: how many, and the last one's hash. */
  migrations: z.object({ count: z.number().int().nonnegative(), lastHash: z.string().nullable() }),
  tables: z.array(z.object({ name: z.string(), rows: z.number().int().nonnegative() })),
  /** Bytes of the sealed payload after the header line (a shorter file was truncated). */
  payloadBytes: z.number().int().positive(),
});
export type BackupHeader = z.infer<typeof backupHeaderSchema>;

/** How to seal a new backup. */
export type Sealing =
  | { kind: "master-key"; masterKey: string }
  | { kind: "age"; recipients: string[] };
/** What can open one. */
export interface Opening {
  masterKey: string | undefined;
  /** age identities (AGE-SECRET-KEY-1...). */
  identities: string[];
}

function backupKey(masterKeyHex: string): Buffer {
  return Buffer.from(
    hkdfSync("sha256", Buffer.from(masterKeyHex, "hex"), Buffer.alloc(0), "rwa-backup-v1", 32),
  );
}

/**
 * Seals `payload` (gzipped here) behind `header`. The sealed part begins with a copy of the
 * header whose `payloadBytes` is 1 (the real length depends on the sealing itself).
 */
export async function sealBackup(
  header: Omit<BackupHeader, "payloadBytes" | "sealing">,
  payload: Buffer,
  sealing: Sealing,
): Promise<Buffer> {
  const zipped = gzipSync(payload);
  const inner: BackupHeader = { ...header, sealing: sealing.kind, payloadBytes: 1 };
  const innerPlain = Buffer.concat([Buffer.from(`${JSON.stringify(inner)}\n`), zipped]);
  if (sealing.kind === "age") {
    const encrypter = new Encrypter();
    for (const recipient of sealing.recipients) encrypter.addRecipient(recipient);
    const sealed = Buffer.from(await encrypter.encrypt(new Uint8Array(innerPlain)));
    const outer: BackupHeader = { ...inner, payloadBytes: sealed.length };
    return Buffer.concat([Buffer.from(`${JSON.stringify(outer)}\n`), sealed]);
  }
  const outer: BackupHeader = { ...inner, payloadBytes: 12 + innerPlain.length + 16 };
  const headerLine = Buffer.from(`${JSON.stringify(outer)}\n`);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", backupKey(sealing.masterKey), iv);
  cipher.setAAD(headerLine);
  const body = Buffer.concat([cipher.update(innerPlain), cipher.final()]);
  return Buffer.concat([headerLine, iv, body, cipher.getAuthTag()]);
}

/** Reads the header line of a backup file, without opening the payload. */
export function readBackupHeader(
  file: Buffer,
  name: string,
): { header: BackupHeader; headerLine: Buffer; sealed: Buffer } {
  const end = file.indexOf(0x0a);
  if (end <= 0) throw new ConfigError(`${name} is not a backup of this service (no header)`);
  const headerLine = file.subarray(0, end + 1);
  let parsed: unknown;
  try {
    parsed = JSON.parse(headerLine.toString("utf8"));
  } catch {
    throw new ConfigError(`${name} is not a backup of this service (unreadable header)`);
  }
  const result = backupHeaderSchema.safeParse(parsed);
  if (!result.success) {
    const format = (parsed as { format?: unknown; version?: unknown } | null)?.format;
    throw new ConfigError(
      format === BACKUP_FORMAT
        ? `${name}: backup header not understood (${result.error.issues[0]?.path.join(".")}: ${result.error.issues[0]?.message}); was it written by a newer release?`
        : `${name} is not a backup of this service`,
    );
  }
  const sealed = file.subarray(end + 1);
  if (sealed.length < result.data.payloadBytes) {
    throw new ConfigError(
      `${name} is truncated: ${sealed.length} of its ${result.data.payloadBytes} payload bytes are there`,
    );
  }
  if (sealed.length > result.data.payloadBytes) {
    throw new ConfigError(
      `${name} has ${sealed.length - result.data.payloadBytes} bytes more than its header says: tampered with`,
    );
  }
  return { header: result.data, headerLine, sealed };
}

/** Opens a backup: its checked header and its payload. Throws ConfigError saying what is wrong. */
export async function openBackup(
  file: Buffer,
  name: string,
  opening: Opening,
  masterKeyIdOf: (hex: string) => string,
): Promise<{ header: BackupHeader; payload: Buffer }> {
  const { header, headerLine, sealed } = readBackupHeader(file, name);
  let inner: Buffer;
  if (header.sealing === "master-key") {
    if (opening.masterKey === undefined) {
      throw new ConfigError(
        `${name} is sealed under a master key (key id ${header.masterKeyId}): set MASTER_KEY`,
      );
    }
    const ours = masterKeyIdOf(opening.masterKey);
    if (ours !== header.masterKeyId) {
      throw new ConfigError(
        `${name} is sealed under another master key (key id ${header.masterKeyId}; this service's is ${ours})`,
      );
    }
    const iv = sealed.subarray(0, 12);
    const tag = sealed.subarray(sealed.length - 16);
    const decipher = createDecipheriv("aes-256-gcm", backupKey(opening.masterKey), iv);
    decipher.setAAD(headerLine);
    decipher.setAuthTag(tag);
    try {
      inner = Buffer.concat([
        decipher.update(sealed.subarray(12, sealed.length - 16)),
        decipher.final(),
      ]);
    } catch {
      throw new ConfigError(
        `${name} was tampered with: its payload or header fails authentication`,
      );
    }
  } else {
    if (opening.identities.length === 0) {
      throw new ConfigError(
        `${name} is sealed to age recipients: set BACKUP_IDENTITY to one of their identities`,
      );
    }
    const decrypter = new Decrypter();
    for (const identity of opening.identities) decrypter.addIdentity(identity);
    try {
      inner = Buffer.from(await decrypter.decrypt(new Uint8Array(sealed)));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ConfigError(
        /no identity matched/i.test(message)
          ? `${name} is sealed to other age recipients than BACKUP_IDENTITY`
          : `${name} was tampered with: its age payload fails authentication (${message})`,
      );
    }
  }
  const end = inner.indexOf(0x0a);
  let innerHeader: unknown;
  try {
    innerHeader = JSON.parse(end > 0 ? inner.subarray(0, end).toString("utf8") : "");
  } catch {
    innerHeader = undefined;
  }
  if (!isDeepStrictEqual(innerHeader, { ...header, payloadBytes: 1 })) {
    throw new ConfigError(
      `${name} was tampered with: its header differs from the copy sealed inside`,
    );
  }
  return { header, payload: gunzipSync(inner.subarray(end + 1)) };
}
