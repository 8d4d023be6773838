import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { REPO_ROOT } from "../../../relayer/src/config.js";

/**
 * Every setting goes through relayer/src/config.ts (validated once, at start): no other file
 * under relayer/src reads a variable out of the environment. Handing the whole environment on
 * (`parseEnv(process.env)`, `{ ...process.env }` for a child process) is not reading a setting.
 */

const SOURCE = path.join(REPO_ROOT, "relayer", "src");
const CONFIG_FILE = path.join(SOURCE, "config.ts");

/** `process.env.X`, `process.env["X"]`, `env.X`, `(options.env ?? process.env).X`. */
const READS_A_VARIABLE = /(process\.env|\benv\b\)?)\s*(\?\.|\.|\[)\s*["']?[A-Z][A-Z0-9_]+/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "migrations" ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

describe("settings", () => {
  test("no file under relayer/src but config.ts reads an environment variable", () => {
    const offenders = sourceFiles(SOURCE)
      .filter((file) => file !== CONFIG_FILE)
      .flatMap((file) =>
        readFileSync(file, "utf8")
          .split("\n")
          .map((line, i) => ({ line, at: `${path.relative(REPO_ROOT, file)}:${i + 1}` }))
          .filter(({ line }) => READS_A_VARIABLE.test(line))
          .map(({ line, at }) => `${at}: ${line.trim()}`),
      );
    assert.deepEqual(offenders, [], "move these settings into relayer/src/config.ts");
  });
});
