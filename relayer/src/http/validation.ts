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
 * - a required field that is absent (or null) → `Missing required field: <field>`, whatever
 *   kind of schema the field has (a union such as "string or number" reports an absent value
 *   as `invalid_union`, not `invalid_type`);
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
  if (issue.path.length > 0 && (value === undefined || value === null)) {
    return new ValidationError(`Missing required field: ${field}`);
  }
  return new ValidationError(`Invalid field: ${field} (${issue.message})`);
}

/** The zod v4 internals this file walks (`schema._zod.def`). */
interface SchemaDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  getter?: () => z.ZodType;
}

function defOf(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}

/** The schema that sees the input's own shape, past optional/default/pipe/lazy wrappers. */
function shapeSchema(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 20; depth += 1) {
    const def = defOf(current);
    if (def.type === "pipe" && def.in !== undefined && def.out !== undefined) {
      // `z.preprocess(fn, schema)` is a pipe from a transform: the input's shape is `out`'s.
      current = defOf(def.in).type === "transform" ? def.out : def.in;
    } else if (def.innerType !== undefined) {
      current = def.innerType;
    } else if (def.type === "lazy" && def.getter !== undefined) {
      current = def.getter();
    } else {
      return current;
    }
  }
  return current;
}

function acceptsAbsent(schema: z.ZodType): boolean {
  try {
    return schema.safeParse(undefined).success;
  } catch {
    return false;
  }
}

/**
 * A copy of `input` without the `null`s of optional fields: an optional field sent as `null`
 * means "not given", as if absent (docs/api-decisions.md, "Statuses and error bodies"). Follows the schema into nested objects
 * and arrays; fields the schema leaves free-form (records, unknown) are kept as sent, and a
 * `null` for a required field stays (and answers `Missing required field`).
 */
export function dropNullOptionals(schema: z.ZodType, input: unknown): unknown {
  if (input === null || typeof input !== "object") return input;
  const target = shapeSchema(schema);
  const def = defOf(target);
  if (def.type === "array" && def.element !== undefined && Array.isArray(input)) {
    const element = def.element;
    return input.map((item: unknown) => dropNullOptionals(element, item));
  }
  if (def.type !== "object" || def.shape === undefined || Array.isArray(input)) return input;
  const out: Record<string, unknown> = {};
  // defineProperty, not assignment: a key named "__proto__" must stay a key (for the schema to
  // refuse), not become the copy's prototype.
  const set = (key: string, value: unknown) =>
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    const field = Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
    if (field === undefined) {
      set(key, value); // unknown keys: left for the schema to refuse
    } else if (value === null && acceptsAbsent(field)) {
      continue;
    } else {
      set(key, dropNullOptionals(field, value));
    }
  }
  return out;
}

/**
 * The dotted path of the first required field that `input` lacks (absent or `null`), following
 * the schema into nested objects and arrays, or undefined. Asked when parsing fails, so the
 * absent field is named whatever issue zod happened to report first. A body's own pre-check
 * (`z.preprocess`) still answers first where the spec fixes another string (`batch-issue`
 * without `assets`: `assets must be a non-empty array`).
 */
export function firstMissingField(
  schema: z.ZodType,
  input: unknown,
  path: readonly string[] = [],
): string | undefined {
  if (input === null || typeof input !== "object") return undefined;
  const def = defOf(shapeSchema(schema));
  if (def.type === "array" && def.element !== undefined && Array.isArray(input)) {
    for (const [index, item] of input.entries()) {
      const missing = firstMissingField(def.element, item, [...path, String(index)]);
      if (missing !== undefined) return missing;
    }
    return undefined;
  }
  if (def.type !== "object" || def.shape === undefined || Array.isArray(input)) return undefined;
  const record = input as Record<string, unknown>;
  for (const [key, field] of Object.entries(def.shape)) {
    const value = record[key];
    if ((value === undefined || value === null) && !acceptsAbsent(field)) {
      return [...path, key].join(".");
    }
    const missing = firstMissingField(field, value, [...path, key]);
    if (missing !== undefined) return missing;
  }
  return undefined;
}

/**
 * Parses `input` with `schema`, throwing the mapped `ValidationError` on failure: an absent (or
 * `null`) required field is `Missing required field: <field>` before any other problem, and
 * optional fields sent as `null` count as absent (`dropNullOptionals`).
 */
export function parseOrThrow<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(dropNullOptionals(schema, input));
  if (!result.success) {
    const missing = firstMissingField(schema, input);
    if (missing !== undefined) throw new ValidationError(`Missing required field: ${missing}`);
    throw validationErrorFrom(result.error, input);
  }
  return result.data;
}
