import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SCOPES } from "../../../relayer/src/domain/scope.js";
import { startTestStack, type TestStack } from "../../support/stack.js";
import {
  accept,
  email,
  registerWithOwner,
  signIn,
  type SignedIn,
} from "../people/people-helpers.js";
import { assertError } from "../../support/assert-error.js";

/**
 * Generated from the served `/openapi.json`: for every operation with a JSON body, every
 * required field (nested ones too) is left out of an otherwise well-formed body and must answer
 * 400 `Missing required field: <field>`; every optional field sent as `null` must be treated as
 * absent (never `Missing required field` nor `Invalid field` for it).
 */

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  minimum?: number;
  minItems?: number;
};

/** A value the schema's types accept (validation beyond types happens after parsing). */
function sample(schema: Schema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum !== undefined) return schema.enum[0];
  if (schema.anyOf !== undefined) return sample(schema.anyOf[0]!);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      return "x".repeat(Math.max(1, schema.minLength ?? 1));
    case "integer":
    case "number":
      return Math.max(1, schema.minimum ?? 1);
    case "boolean":
      return true;
    case "array":
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () =>
        sample(schema.items ?? {}),
      );
    case "object":
      return Object.fromEntries(
        (schema.required ?? []).map((key) => [key, sample(schema.properties?.[key] ?? {})]),
      );
    default:
      return "x";
  }
}

/** Where the spec's error table fixes another string for an absent field. */
const SPEC_MESSAGES: Record<string, string> = {
  "post /api/v1/write/batch-issue assets": "assets must be a non-empty array",
};

interface Case {
  operation: string;
  method: string;
  path: string;
  field: string;
  body: unknown;
}

/** One body per required field, that field removed (dotted path for nested objects in arrays). */
function missingCases(operation: string, method: string, path: string, schema: Schema): Case[] {
  const cases: Case[] = [];
  const walk = (node: Schema, prefix: string[], build: (inner: unknown) => unknown) => {
    const full = sample(node) as Record<string, unknown>;
    for (const key of node.required ?? []) {
      const { [key]: _dropped, ...rest } = full;
      cases.push({ operation, method, path, field: [...prefix, key].join("."), body: build(rest) });
      const child = node.properties?.[key];
      if (child?.type === "array" && child.items?.properties !== undefined) {
        walk(child.items, [...prefix, key, "0"], (inner) => build({ ...full, [key]: [inner] }));
      }
    }
  };
  walk(schema, [], (inner) => inner);
  return cases;
}

describe("required and null fields, generated from /openapi.json", { timeout: 120_000 }, () => {
  let stack: TestStack;
  let org: { apiKey: string; walletAddress: string };
  /** A signed-in owner of `org`, for the routes only a person may call. */
  let owner: SignedIn;
  let operations: Array<{ method: string; path: string; schema: Schema }>;
  /** `method path` of the operations whose only security is a person's console session. */
  const personOnly = new Set<string>();

  before(async () => {
    stack = await startTestStack({ logLevel: "warn" });
    stack.ctx.config.apiKeyRateLimitPerMinute = 100_000;
    const ownerEmail = email("owner");
    const registered = await registerWithOwner(stack, ownerEmail, [...SCOPES]);
    owner = await signIn(stack, await accept(stack, registered.invitationUrl, ownerEmail));
    const wallet = await stack.api("GET", "/api/enterprise/wallet", {
      apiKey: registered.apiKey,
    });
    org = { apiKey: registered.apiKey, walletAddress: String(wallet.body.walletAddress) };
    const document = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: { content?: Record<string, { schema?: Schema }> };
            security?: Array<Record<string, unknown>>;
          }
        >
      >;
    };
    operations = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const schema = operation.requestBody?.content?.["application/json"]?.schema;
        if (schema?.properties !== undefined) operations.push({ method, path, schema });
        const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
        if (schemes.length > 0 && schemes.every((name) => name === "ConsoleSession"))
          personOnly.add(`${method} ${path}`);
      }
    }
  });
  after(() => stack?.stop());

  const call = (method: string, path: string, body: unknown) => {
    const url = path.replace(/\{[^}]+\}/g, "x_doesnotexist");
    return personOnly.has(`${method} ${path}`)
      ? owner.api(method.toUpperCase(), url, { body })
      : stack.api(method.toUpperCase(), url, {
          body,
          headers: { "x-api-key": org.apiKey, "x-admin-token": stack.adminToken },
        });
  };

  it("covers the write, key, webhook and registration bodies", () => {
    const paths = operations.map((o) => o.path);
    for (const expected of [
      "/api/v1/write/transfer",
      "/api/v1/write/marketplace/list",
      "/api/v1/write/batch-issue",
      "/api/enterprise/register",
      "/api/enterprise/webhooks",
    ]) {
      assert.ok(paths.includes(expected), expected);
    }
  });

  it("every absent required field answers 400 Missing required field: <field>", async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const { method, path, schema } of operations) {
      for (const c of missingCases(`${method} ${path}`, method, path, schema)) {
        const res = await call(c.method, c.path, c.body);
        checked += 1;
        const want =
          SPEC_MESSAGES[`${c.operation} ${c.field}`] ?? `Missing required field: ${c.field}`;
        if (res.status !== 400 || res.body?.error !== want)
          wrong.push(`${c.operation} without ${c.field}: ${res.status} ${res.text}`);
      }
    }
    assert.ok(checked >= 15, `only ${checked} required fields found`);
    assert.deepEqual(wrong, []);
  });

  it("a required field sent as null is missing too", async () => {
    const transfer = await call("post", "/api/v1/write/transfer", {
      tokenId: null,
      toAddress: org.walletAddress,
    });
    assertError(transfer, 400, "Missing required field: tokenId");
  });

  it("every optional field sent as null is treated as absent", async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const { method, path, schema } of operations) {
      const optional = Object.keys(schema.properties ?? {}).filter(
        (key) => !(schema.required ?? []).includes(key),
      );
      for (const key of optional) {
        const body = { ...(sample(schema) as Record<string, unknown>), [key]: null };
        const res = await call(method, path, body);
        checked += 1;
        const error = String(res.body?.error ?? "");
        if (res.status >= 500 || new RegExp(`field: ${key}\\b`).test(error))
          wrong.push(`${method} ${path} with ${key}: null: ${res.status} ${res.text}`);
      }
    }
    assert.ok(checked >= 10, `only ${checked} optional fields found`);
    assert.deepEqual(wrong, []);
  });
});
