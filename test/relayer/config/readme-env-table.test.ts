import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { CONFIG_VARIABLES, REPO_ROOT, RETIRED_VARIABLES } from "../../../relayer/src/config.js";

/**
 * The README's "Configuration" table against `relayer/src/config.ts`: every variable the relayer
 * reads has a row, and every row names a variable the relayer reads, or one of the few read only
 * outside the relayer (listed below with the reason). The list comes from config.ts itself
 * (`CONFIG_VARIABLES`, the keys of its zod validators), not from a search of the source.
 */

/**
 * Variables the README's table may document although relayer/src/config.ts does not read them:
 * they configure the build or the deploy tooling, never the running relayer. A row for one of
 * them is allowed, not required.
 */
const READ_OUTSIDE_THE_RELAYER: Readonly<Record<string, string>> = {
  EVM_VERSION: "hardhat.config.ts and deploy/: the EVM version the contracts are compiled for",
};

const README = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");

/** The variable names in the first column of the table under `### Configuration`. */
function tableVariables(markdown: string): string[] {
  const section = markdown.split(/^### Configuration$/m)[1];
  assert.ok(section !== undefined, "README has a '### Configuration' section");
  const lines = section.split("\n");
  const start = lines.findIndex((line) => line.startsWith("|"));
  assert.ok(start >= 0, "the Configuration section has a table");
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line);
  }
  return rows.flatMap((row) => {
    const firstCell = row.split("|")[1] ?? "";
    return [...firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!);
  });
}

describe("README configuration table", () => {
  const documented = tableVariables(README);

  test("has a row for every variable config.ts reads", () => {
    const missing = CONFIG_VARIABLES.filter((name) => !documented.includes(name));
    assert.deepEqual(missing, [], `add these to the README's Configuration table`);
  });

  test("documents no variable that config.ts does not read, beyond the listed build/deploy ones", () => {
    const unknown = documented.filter(
      (name) =>
        !(CONFIG_VARIABLES as readonly string[]).includes(name) &&
        READ_OUTSIDE_THE_RELAYER[name] === undefined,
    );
    assert.deepEqual(unknown, [], "rows naming variables the relayer never reads");
  });

  test("names each variable once", () => {
    const repeated = documented.filter((name, i) => documented.indexOf(name) !== i);
    assert.deepEqual(repeated, []);
  });

  test("lists no retired variable, and the README says what replaced each one", () => {
    for (const name of Object.keys(RETIRED_VARIABLES)) {
      assert.ok(!documented.includes(name), `${name} is retired: remove its row`);
      assert.match(README, new RegExp(`\`${name}\``), `the README mentions ${name}`);
    }
  });

  test("the build/deploy list does not hide a variable config.ts reads", () => {
    for (const name of Object.keys(READ_OUTSIDE_THE_RELAYER))
      assert.ok(!(CONFIG_VARIABLES as readonly string[]).includes(name), name);
  });
});
