import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { cruise, type ICruiseResult, type IConfiguration } from "dependency-cruiser";
import { moduleMapSection, withSection, type ModuleMap } from "../../scripts/module-map-doc.ts";

const require = createRequire(import.meta.url);
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const config = require(path.join(ROOT, ".dependency-cruiser.cjs")) as IConfiguration;

/** A throwaway tree laid out like relayer/src, cruised with the project's own rules. */
async function cruiseTree(files: Record<string, string>): Promise<ICruiseResult> {
  const base = mkdtempSync(path.join(os.tmpdir(), "module-map-"));
  dirs.push(base);
  for (const [file, text] of Object.entries(files)) {
    const full = path.join(base, "relayer/src", file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  const { output } = await cruise(["relayer/src"], {
    ruleSet: { forbidden: config.forbidden, allowed: config.allowed, allowedSeverity: "error" },
    baseDir: base,
    tsPreCompilationDeps: true,
    validate: true,
  });
  return output as ICruiseResult;
}
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const rulesBroken = (result: ICruiseResult): string[] =>
  result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);

describe("the module map (relayer/module-map.json, checked by npm run lint)", () => {
  it("passes a tree whose imports go down the layers: http → writes → engine → chain", async () => {
    const result = await cruiseTree({
      "http/route.ts": 'import { write } from "../writes/write.ts";\nexport const route = write;\n',
      "writes/write.ts": 'import { send } from "../engine/send.ts";\nexport const write = send;\n',
      "engine/send.ts": 'import { rpc } from "../chain/rpc/client.ts";\nexport const send = rpc;\n',
      "chain/rpc/client.ts": "export const rpc = 1;\n",
    });
    assert.deepEqual(rulesBroken(result), []);
  });

  it("refuses an engine module that imports http/", async () => {
    const result = await cruiseTree({
      "http/route.ts": "export const route = 1;\n",
      "engine/send.ts": 'import { route } from "../http/route.ts";\nexport const send = route;\n',
    });
    assert.deepEqual(rulesBroken(result), [
      "not-in-allowed: relayer/src/engine/send.ts → relayer/src/http/route.ts",
    ]);
  });

  it("refuses an import circle inside one module, type-only imports included", async () => {
    const result = await cruiseTree({
      "engine/a.ts": 'import type { B } from "./b.ts";\nexport type A = B;\n',
      "engine/b.ts": 'import type { A } from "./a.ts";\nexport type B = A | 1;\n',
    });
    assert.deepEqual(rulesBroken(result), [
      "no-circular: relayer/src/engine/a.ts → relayer/src/engine/b.ts",
    ]);
  });

  it("refuses a value import in context.ts", async () => {
    const result = await cruiseTree({
      "engine/engine.ts": "export class Engine {}\n",
      "context.ts":
        'import { Engine } from "./engine/engine.ts";\nexport const engine = new Engine();\n',
    });
    assert.deepEqual(rulesBroken(result), [
      "context-types-only: relayer/src/context.ts → relayer/src/engine/engine.ts",
    ]);
  });

  it("is the map docs/architecture.md shows", () => {
    const map = JSON.parse(
      readFileSync(path.join(ROOT, "relayer/module-map.json"), "utf8"),
    ) as ModuleMap;
    const page = readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8");
    assert.equal(withSection(page, moduleMapSection(map)), page, "run npm run docs:architecture");
  });
});
