import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { CONFIG_VARIABLES, REPO_ROOT, RETIRED_VARIABLES } from "../../../relayer/src/config.js";

/**
 * The "Relayer variables" table of docs/configuration.md against `relayer/src/config.ts`: every
 * variable the relayer reads has a row, and every row names a variable the relayer reads, or one
 * of the few read only outside the relayer (listed below with the reason). The list comes from
 * config.ts itself (`CONFIG_VARIABLES`, the keys of its zod validators), not from a search of the
 * source.
 */

/**
 * Variables the table may document although relayer/src/config.ts does not read them: they
 * configure the build or the deploy tooling, never the running relayer. A row for one of them is
 * allowed, not required.
 */
const READ_OUTSIDE_THE_RELAYER: Readonly<Record<string, string>> = {
  EVM_VERSION: "hardhat.config.ts and deploy/: the EVM version the contracts are compiled for",
};

const CONFIGURATION_DOC = "docs/configuration.md";
const CONFIGURATION = readFileSync(path.join(REPO_ROOT, CONFIGURATION_DOC), "utf8");
const README = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");

/** The variable names in the first column of the table under `## Relayer variables`. */
function tableVariables(markdown: string): string[] {
  const section = markdown.split(/^## Relayer variables$/m)[1];
  assert.ok(section !== undefined, `${CONFIGURATION_DOC} has a '## Relayer variables' section`);
  const lines = section.split("\n");
  const start = lines.findIndex((line) => line.startsWith("|"));
  assert.ok(start >= 0, "the Relayer variables section has a table");
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

describe("docs/configuration.md variable table", () => {
  const documented = tableVariables(CONFIGURATION);

  test("has a row for every variable config.ts reads", () => {
    const missing = CONFIG_VARIABLES.filter((name) => !documented.includes(name));
    assert.deepEqual(missing, [], `add these to the table in ${CONFIGURATION_DOC}`);
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

  test("lists no retired variable, and the page says what replaced each one", () => {
    for (const name of Object.keys(RETIRED_VARIABLES)) {
      assert.ok(!documented.includes(name), `${name} is retired: remove its row`);
      assert.match(
        CONFIGURATION,
        new RegExp(`\`${name}\``),
        `${CONFIGURATION_DOC} mentions ${name}`,
      );
    }
  });

  test("the build/deploy list does not hide a variable config.ts reads", () => {
    for (const name of Object.keys(READ_OUTSIDE_THE_RELAYER))
      assert.ok(!(CONFIG_VARIABLES as readonly string[]).includes(name), name);
  });

  test("the README links to the page", () => {
    assert.match(README, /\]\(docs\/configuration\.md\)/);
  });
});
