import assert from "node:assert/strict";
import { describe, it } from "node:test";
import spectralCore from "@stoplight/spectral-core";
import spectralParsers from "@stoplight/spectral-parsers";
import spectralRulesets from "@stoplight/spectral-rulesets";
import { buildOpenApiDocument } from "../../../relayer/src/http/openapi/build-openapi.js";

const { Document, Spectral } = spectralCore;
const { oas } = spectralRulesets;
const { Json } = spectralParsers;

/** Spectral's `DiagnosticSeverity.Error` (`@stoplight/types`: Error 0, Warning 1, ...). */
const ERROR: number = 0;

/**
 * Spectral's `spectral:oas` ruleset (the one `extends: ["spectral:oas"]` gives the CLI) over the
 * document `GET /openapi.json` serves (built from the route registry, with the `servers` entry
 * the route adds): no error may come back. Warnings are printed, not failed on.
 */
describe("OpenAPI document under Spectral's oas ruleset", () => {
  it("GET /openapi.json has no Spectral oas error", async () => {
    const document = {
      ...buildOpenApiDocument({ coinSymbol: "COIN" }),
      servers: [{ url: "http://127.0.0.1:8080", description: "This relayer" }],
    };
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas, "recommended"]] } as never);
    const results = await spectral.run(new Document(JSON.stringify(document), Json));
    const errors = results.filter((r) => Number(r.severity) === ERROR);
    const warnings = results.filter((r) => Number(r.severity) !== ERROR);
    if (warnings.length > 0)
      console.log(
        `spectral:oas warnings: ${warnings.length} (${[...new Set(warnings.map((w) => w.code))].join(", ")})`,
      );
    assert.deepEqual(
      errors.map((e) => `${String(e.code)} at ${e.path.join(".")}: ${e.message}`),
      [],
    );
  });
});
