import { accessSync, constants, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * The Chromium the browser tests (test/console) drive through playwright-core, which cannot
 * download one here. Looked for, in order: `CHROMIUM_PATH`, Debian's `chromium` (and the usual
 * other names) on PATH, then Playwright's browser cache (`PLAYWRIGHT_BROWSERS_PATH`, else
 * `~/.cache/ms-playwright`). `scripts/test.sh` runs this file to decide whether to install
 * Debian's `chromium` before `npm test` starts (see the README's prerequisites).
 */

/** Debian's package that provides a browser the tests can drive. */
export const CHROMIUM_PACKAGE = "chromium";

/** Command-line switches of the tests' Chromium: headless, no sandbox, nothing fetched on its own. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const NAMES_ON_PATH = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === "") continue;
    const file = path.join(dir, name);
    if (isExecutable(file)) return file;
  }
  return undefined;
}

function inPlaywrightCache(cacheDir: string): string | undefined {
  let entries: string[];
  try {
    entries = readdirSync(cacheDir).sort().reverse(); // newest revision first
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const candidates = entry.startsWith("chromium_headless_shell-")
      ? ["chrome-linux/headless_shell", "chrome-headless-shell-linux64/chrome-headless-shell"]
      : entry.startsWith("chromium-")
        ? ["chrome-linux/chrome", "chrome-linux64/chrome"]
        : [];
    for (const candidate of candidates) {
      const file = path.join(cacheDir, entry, candidate);
      if (isExecutable(file)) return file;
    }
  }
  return undefined;
}

/**
 * Path of a Chromium to drive, or undefined when there is none.
 *
 * @param env the environment to read CHROMIUM_PATH, PATH and PLAYWRIGHT_BROWSERS_PATH from
 * @example
 * const executablePath = findChromium() ?? fail("install chromium");
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const explicit = env.CHROMIUM_PATH;
  if (explicit !== undefined && explicit !== "")
    return isExecutable(explicit) ? explicit : undefined;
  for (const name of NAMES_ON_PATH) {
    const found = onPath(name, env.PATH ?? "");
    if (found !== undefined) return found;
  }
  const cache = env.PLAYWRIGHT_BROWSERS_PATH ?? path.join(os.homedir(), ".cache", "ms-playwright");
  return inPlaywrightCache(cache);
}

/** What to do when `findChromium` finds nothing, in one line. */
export function missingChromiumMessage(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.CHROMIUM_PATH;
  if (explicit !== undefined && explicit !== "")
    return `CHROMIUM_PATH=${explicit} is not an executable file: point it at a Chromium or Chrome binary, or unset it.`;
  return (
    `The browser tests (test/console) need Chromium and none was found: install Debian's ` +
    `"${CHROMIUM_PACKAGE}" package (apt-get install ${CHROMIUM_PACKAGE}) or set CHROMIUM_PATH to a Chromium binary.`
  );
}

// `node --import tsx test/support/chromium.ts`: prints the path, or the message and exits 1.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const found = findChromium();
  if (found === undefined) {
    process.stderr.write(`${missingChromiumMessage()}\n`);
    process.exit(1);
  }
  process.stdout.write(`${found}\n`);
}
