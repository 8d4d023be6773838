import { spawn } from "node:child_process";
import { mkdir, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { REPO_ROOT } from "../config.js";

/** The Next.js console's source folder. */
export const CONSOLE_DIR = path.join(REPO_ROOT, "console");
/** Where `next build` writes the static export (`output: "export"`); served under /console. */
export const CONSOLE_OUT_DIR = path.join(CONSOLE_DIR, "out");
/** Written into the export after a successful build: the newest source mtime it was built from. */
const STAMP_FILE = ".build-stamp.json";
/** Held (O_EXCL) while a build runs, so two relayers or test runs never build into one folder. */
const LOCK_FILE = path.join(CONSOLE_DIR, ".build.lock");
/** A lock older than this is a crashed build's: taken over. */
const STALE_LOCK_MS = 10 * 60 * 1000;
const BUILD_TIMEOUT_MS = 10 * 60 * 1000;

/** Outcome of `ensureConsoleBuilt`. */
export type ConsoleBuildResult =
  | { status: "fresh" | "built"; ms: number }
  | { status: "failed"; ms: number; message: string };

/** The last build failure of this process, or undefined; the static router answers 503 with it. */
let lastFailure: string | undefined;

/** Why the console cannot be served (a failed build), or undefined when it can. */
export function consoleBuildFailure(): string | undefined {
  return lastFailure;
}

async function newestMtime(entry: string): Promise<number> {
  const info = await stat(entry).catch(() => undefined);
  if (info === undefined) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const child of await readdir(entry)) {
    newest = Math.max(newest, await newestMtime(path.join(entry, child)));
  }
  return newest;
}

/**
 * The newest modification time among the console's inputs: everything under console/app,
 * console/*.config*, the relayer's domain module it imports (relayer/src/domain) and the root
 * package.json (dependency versions). tsconfig.json and
 * next-env.d.ts are left out on purpose: `next build` itself may rewrite them.
 */
export async function consoleSourceMtime(consoleDir = CONSOLE_DIR): Promise<number> {
  const configs = (await readdir(consoleDir).catch(() => [] as string[])).filter((name) =>
    /\.config\./.test(name),
  );
  const times = await Promise.all([
    newestMtime(path.join(consoleDir, "app")),
    ...configs.map((name) => newestMtime(path.join(consoleDir, name))),
    newestMtime(path.join(path.dirname(consoleDir), "relayer", "src", "domain")),
    newestMtime(path.join(path.dirname(consoleDir), "package.json")),
  ]);
  return Math.max(...times);
}

/** Whether console/out holds an export built from the current sources. */
export async function isConsoleBuildFresh(consoleDir = CONSOLE_DIR): Promise<boolean> {
  const outDir = path.join(consoleDir, "out");
  try {
    const stamp = JSON.parse(await readFile(path.join(outDir, STAMP_FILE), "utf8")) as {
      sourceMtimeMs?: unknown;
    };
    await stat(path.join(outDir, "index.html"));
    return (
      typeof stamp.sourceMtimeMs === "number" &&
      stamp.sourceMtimeMs >= (await consoleSourceMtime(consoleDir))
    );
  } catch {
    return false;
  }
}

async function acquireLock(print: (line: string) => void): Promise<() => Promise<void>> {
  let announced = false;
  for (;;) {
    try {
      const handle = await open(LOCK_FILE, "wx");
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(LOCK_FILE, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const info = await stat(LOCK_FILE).catch(() => undefined);
      if (info !== undefined && Date.now() - info.mtimeMs > STALE_LOCK_MS) {
        await rm(LOCK_FILE, { force: true });
        continue;
      }
      if (!announced) print("  another console build is running; waiting for it");
      announced = true;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/**
 * The console's API types (console/app/lib/api-types.ts) come from the relayer's OpenAPI
 * document, which the http module owns; the console module does not import it
 * (relayer/module-map.json), so the build runs this command first, as a process of its own.
 */
const API_TYPES_CLI = path.join("relayer", "src", "http", "openapi", "console-api-types-cli.ts");

/** Runs `node args` in `cwd`, keeping the tail of its output. */
function runNode(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const collect = (chunk: Buffer) => {
      // Keep the tail only: enough to show the error without holding a whole build log.
      output = (output + chunk.toString("utf8")).slice(-20_000);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => child.kill("SIGKILL"), BUILD_TIMEOUT_MS);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Runs `node args`; throws, with the last lines of its output, when it fails. */
async function runStep(what: string, args: string[], cwd: string, env?: Record<string, string>) {
  const { code, output } = await runNode(args, cwd, env);
  if (code !== 0) {
    const tail = output.trim().split("\n").slice(-25).join("\n");
    throw new Error(`${what} exited with ${code}\n${tail}`);
  }
}

/**
 * Builds the console's static export when it is missing or older than its sources (see
 * `consoleSourceMtime`): first its API types from the OpenAPI document (`API_TYPES_CLI`), then
 * `next build`, which type-checks the console against them. Prints progress. Never throws: a
 * failed build is logged through `print`, remembered for `consoleBuildFailure()` (so /console
 * answers a clear 503 page) and returned, and the API keeps running without its console.
 *
 * @param options.force rebuild even when fresh
 * @example
 * const result = await ensureConsoleBuilt({ print: console.log });
 */
export async function ensureConsoleBuilt(
  options: { print?: (line: string) => void; force?: boolean; consoleDir?: string } = {},
): Promise<ConsoleBuildResult> {
  const print = options.print ?? ((line: string) => console.log(line));
  const consoleDir = options.consoleDir ?? CONSOLE_DIR;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    if (options.force !== true && (await isConsoleBuildFresh(consoleDir))) {
      lastFailure = undefined;
      return { status: "fresh", ms: elapsed() };
    }
    const release = await acquireLock(print);
    try {
      // Another process may have built it while this one waited for the lock.
      if (options.force !== true && (await isConsoleBuildFresh(consoleDir))) {
        lastFailure = undefined;
        return { status: "fresh", ms: elapsed() };
      }
      print("  building the console (first start or changed sources, about 30 s)...");
      const root = path.dirname(consoleDir);
      await runStep(
        "the console's API types",
        ["--import", "tsx", path.join(root, API_TYPES_CLI), consoleDir],
        root,
      );
      const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");
      await runStep("next build", [nextBin, "build"], consoleDir, {
        NEXT_TELEMETRY_DISABLED: "1",
        NODE_ENV: "production",
      });
      const outDir = path.join(consoleDir, "out");
      await mkdir(outDir, { recursive: true });
      const sourceMtimeMs = await consoleSourceMtime(consoleDir);
      await writeFile(
        path.join(outDir, STAMP_FILE),
        JSON.stringify({ sourceMtimeMs, builtAt: new Date().toISOString() }),
      );
      lastFailure = undefined;
      return { status: "built", ms: elapsed() };
    } finally {
      await release();
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    lastFailure = message.split("\n")[0] ?? "console build failed";
    print(`  console build FAILED (the API runs without the console): ${message}`);
    return { status: "failed", ms: elapsed(), message };
  }
}
