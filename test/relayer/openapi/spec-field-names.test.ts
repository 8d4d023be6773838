import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { z } from "zod";
import { assetRecord as assetRecordSchema } from "../../../relayer/src/domain/asset.js";
import { listingRecord as listingRecordSchema } from "../../../relayer/src/domain/listing.js";
import { ROUTES } from "../../../relayer/src/http/routes/index.js";
import { listListingsQuery } from "../../../relayer/src/http/routes/read.js";
import { registerResponse } from "../../../relayer/src/http/routes/enterprise-register.js";
import { walletResponse } from "../../../relayer/src/http/routes/enterprise-wallet.js";
import type { AnyRouteDefinition } from "../../../relayer/src/http/route-definition.js";

/**
 * One vocabulary: the field names of the reads and writes are the interface specification's own.
 * Reads the specification's resource tables (section "Resources and their fields") and request
 * tables (the write and management endpoints) and checks them against the zod schemas that
 * validate requests and document responses (and from which OpenAPI and the SDK types derive).
 * The specification lives beside the repository (SPEC_FILE, default
 * /work/shared/spec/interface-spec.md); without it these checks are skipped, saying why.
 */

const SPEC_FILE = process.env.SPEC_FILE ?? "/work/shared/spec/interface-spec.md";
const spec = existsSync(SPEC_FILE) ? readFileSync(SPEC_FILE, "utf8") : undefined;
const skip = spec === undefined ? `no specification at ${SPEC_FILE} (set SPEC_FILE)` : false;

/**
 * Read fields named differently from the resource table on purpose, with the reason. Everything
 * else must carry the specification's name.
 */
const READ_NAMES: Record<string, Record<string, string>> = {
  // An asset has several transactions over its life; the record names the issuance one.
  Asset: { txHash: "mintTxHash" },
};

/** Request fields the service adds to the specification's, with where they are documented. */
const WRITE_EXTENSIONS: Record<string, string[]> = {
  // The organization's plan and its rate limits (README, "Plans and rate limits"); the first
  // owner's invitation (docs/people.md).
  "/api/enterprise/register": ["plan", "ownerEmail"],
  // Key expiry ("Key expiry and rotation rules: not shown"; docs/api-decisions.md,
  // "Authentication"); the addresses a key may be used from (docs/api-decisions.md, "API keys
  // bound to addresses").
  "/api/enterprise/keys": ["expiresAt", "allowedIps"],
};

/**
 * Request fields every write (`/api/v1/write/...`) adds: the write's deadline
 * (docs/api-decisions.md, "Deadlines").
 */
const EVERY_WRITE_EXTENSIONS = ["validForSeconds"];

/** The part of the spec from `heading` (a line start) to the next heading of the same level. */
function section(heading: string): string {
  const at = spec!.indexOf(`\n${heading}`);
  assert.ok(at >= 0, `the specification has a "${heading}" section`);
  const level = /^#+/.exec(heading)![0];
  const rest = spec!.slice(at + heading.length + 1);
  const next = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return next < 0 ? rest : rest.slice(0, next);
}

/** Field names in the first column of a section's `| Field | ...` table (plain identifiers). */
function tableFields(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| Field"))
    .map((line) => line.split("|")[1]!.trim())
    .filter((name) => /^[a-zA-Z][a-zA-Z0-9]*$/.test(name));
}

/** Keys of an object schema, through optional, nullable and preprocess wrappers. */
function keysOf(schema: z.ZodType): string[] {
  let current: z.ZodType = schema;
  for (;;) {
    if (current instanceof z.ZodObject) return Object.keys(current.shape);
    if (current instanceof z.ZodPipe) current = current.out as z.ZodType;
    else if (current instanceof z.ZodOptional || current instanceof z.ZodNullable)
      current = current.unwrap() as z.ZodType;
    else assert.fail(`not an object schema: ${current.constructor.name}`);
  }
}

function bodyOf(routes: readonly AnyRouteDefinition[], path: string): z.ZodType {
  const route = routes.find((r) => r.method === "post" && r.path === path);
  assert.ok(route, `a POST ${path} route`);
  const body = (route.request as { body?: z.ZodType }).body;
  assert.ok(body, `POST ${path} declares its body schema`);
  return body;
}

describe("field names follow the interface specification", { skip }, () => {
  const resources: Array<[string, string, z.ZodType]> = [
    ["Asset", "### 2.1", assetRecordSchema],
    ["Listing", "### 2.3", listingRecordSchema],
    ["Organization", "### 2.4", registerResponse],
    ["Wallet balance", "### 2.7", walletResponse],
  ];
  for (const [name, heading, schema] of resources) {
    test(`every field of the ${name} resource is in its read record under the same name`, () => {
      const fields = tableFields(section(heading));
      assert.ok(fields.length >= 3, `${name} table parsed: ${fields.join(", ")}`);
      const keys = keysOf(schema);
      for (const field of fields) {
        const expected = READ_NAMES[name]?.[field] ?? field;
        assert.ok(keys.includes(expected), `${name} read record lacks "${expected}"`);
      }
    });
  }

  test("the listing record's price alias and the status filter alias are documented as aliases", () => {
    const listing = listingRecordSchema.shape;
    assert.match(listing.price.description ?? "", /Alias of `priceInCOIN`/);
    const query = listListingsQuery.shape;
    assert.ok("state" in query, "the filter is named after the record's field, state");
    assert.match(query.status.description ?? "", /Alias of `state`/);
  });

  const writes = ROUTES;
  const writeSections = [...spec!.matchAll(/^#### POST (\/api\/\S+)/gm)].map((m) => m[1]!);
  test("the specification's write tables were found", () => {
    assert.ok(writeSections.length >= 8, writeSections.join(", "));
  });
  for (const path of writeSections) {
    test(`POST ${path} accepts exactly the specification's fields`, () => {
      const fields = tableFields(section(`#### POST ${path}`));
      const expected = [
        ...fields,
        ...(WRITE_EXTENSIONS[path] ?? []),
        ...(path.startsWith("/api/v1/write/") ? EVERY_WRITE_EXTENSIONS : []),
      ];
      assert.deepEqual(keysOf(bodyOf(writes, path)).sort(), expected.sort());
    });
  }

  for (const path of ["/api/enterprise/keys", "/api/enterprise/webhooks"]) {
    test(`POST ${path} accepts exactly the fields of the specification's POST row`, () => {
      const row = section(`#### ${path}`)
        .split("\n")
        .find((line) => line.startsWith("| POST |"));
      assert.ok(row, `a POST row under ${path}`);
      const fields = [...row.split("|")[2]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!);
      const extensions = WRITE_EXTENSIONS[path] ?? [];
      assert.deepEqual(keysOf(bodyOf(writes, path)).sort(), [...fields, ...extensions].sort());
    });
  }
});
