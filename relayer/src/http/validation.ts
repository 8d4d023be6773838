import type { z } from "zod";
import { ValidationError } from "../errors.js";

/** Dotted path of an issue (`assets.3.name`), or `body` for the root. */
function pathText(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "body" : path.map(String).join(".");
}

/** The value at `path` inside `input` (undefined when any step is missing). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const step of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[step];
  }
  return current;
}

/**
 * Turns the first zod issue into the spec's error strings:
 * - a required field that is absent (or null) → `Missing required field: <field>`;
 * - an unknown field (strict objects) → `Unknown field: <field>`;
 * - anything else → `Invalid field: <field> (<reason>)`, the reason being the schema's message.
 * A body that is not a JSON object → `Request body must be a JSON object`.
 */
export function validationErrorFrom(error: z.ZodError, input: unknown): ValidationError {
  const issue = error.issues[0];
  if (issue === undefined) return new ValidationError("Invalid request");
  if (issue.path.length === 0 && issue.code === "invalid_type") {
    return new ValidationError("Request body must be a JSON object");
  }
  if (issue.code === "unrecognized_keys") {
    const field = [...issue.path, issue.keys[0] ?? ""].map(String).join(".");
    return new ValidationError(`Unknown field: ${field}`);
  }
  const field = pathText(issue.path);
  const value = valueAt(input, issue.path);
  if (issue.code === "invalid_type" && (value === undefined || value === null)) {
    return new ValidationError(`Missing required field: ${field}`);
  }
  return new ValidationError(`Invalid field: ${field} (${issue.message})`);
}

/** Parses `input` with `schema`, throwing the mapped `ValidationError` on failure. */
export function parseOrThrow<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) throw validationErrorFrom(result.error, input);
  return result.data;
}
