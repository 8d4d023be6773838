import { ValidationError } from "../errors.js";

/**
 * The one codec of the API's page cursors. A cursor is base64url of a small JSON object that
 * names where the last page ended: the fields of the list's sort key. Each list declares its
 * fields once (`cursorCodec({ t: timestampKey, i: prefixedId("tx") })`); the codec writes them
 * in that order and refuses, with 400 `Invalid cursor`, anything that does not decode to exactly
 * such values: garbage, other JSON, a field missing or out of its range. Extra fields are
 * ignored. The wire formats are each list's own, unchanged since cursors were first handed out:
 *
 * - `{"k":"<decimal id>"}`: assets, listings, the audit log (`encodePageCursor`);
 * - `{"b":<block number>}`: a wallet's balance history;
 * - `{"t":"<created_at, µs>","i":"<id>"}`: an organization's transactions, the org list.
 */

/** The one answer to a cursor that is not one of ours. */
export const INVALID_CURSOR = "Invalid cursor";

/** Accepts one field of a decoded cursor (an unknown JSON value) as a `V`. */
export type CursorField<V> = (value: unknown) => value is V;

/** The position a codec of `fields` encodes: each field with the type its check accepts. */
export type CursorPosition<F extends Record<string, CursorField<unknown>>> = {
  [K in keyof F]: F[K] extends CursorField<infer V> ? V : never;
};

/** Encodes and decodes one list's cursors (plain functions: they may be passed around). */
export interface CursorCodec<P> {
  /** The cursor of the page after `position` (the fields are written in the codec's order). */
  encode: (position: P) => string;
  /**
   * The position `cursor` names.
   *
   * @throws ValidationError `Invalid cursor` for anything `encode` could not have made
   */
  decode: (cursor: string) => P;
}

/**
 * A codec for cursors of `fields` (name → check), written in the order given.
 *
 * @example
 * const codec = cursorCodec({ b: positiveInteger });
 * codec.encode({ b: 12 }); // "eyJiIjoxMn0"
 * codec.decode("eyJiIjoxMn0"); // { b: 12 }
 * codec.decode("nonsense"); // throws ValidationError("Invalid cursor")
 */
export function cursorCodec<const F extends Record<string, CursorField<unknown>>>(
  fields: F,
): CursorCodec<CursorPosition<F>> {
  const names = Object.keys(fields);
  const pick = (source: Record<string, unknown>) =>
    Object.fromEntries(names.map((name) => [name, source[name]])) as CursorPosition<F>;
  return {
    encode: (position) => Buffer.from(JSON.stringify(pick(position)), "utf8").toString("base64url"),
    decode: (cursor) => {
      const parsed = parseObject(cursor);
      if (
        parsed !== undefined &&
        names.every((name) => fields[name]!(Object.hasOwn(parsed, name) ? parsed[name] : undefined))
      )
        return pick(parsed);
      throw new ValidationError(INVALID_CURSOR);
    },
  };
}

/** The JSON object inside a base64url cursor, or undefined for anything else. */
function parseObject(cursor: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    return typeof parsed === "object" && parsed !== null
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A field that is a string matching `pattern` (anchor it). */
export function textMatching(pattern: RegExp): CursorField<string> {
  return (value): value is string => typeof value === "string" && pattern.test(value);
}

/** An unsigned decimal id of at most 78 digits (a uint256: token, listing or audit row id). */
export const decimalId = textMatching(/^\d{1,78}$/);

/** A safe positive integer (a block number). */
export const positiveInteger: CursorField<number> = (value): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0;

/** A row id with its prefix: `prefixedId("tx")` accepts `tx_` and 1 to 40 of `[0-9a-z]`. */
export function prefixedId(prefix: string): CursorField<string> {
  return textMatching(new RegExp(`^${prefix}_[0-9a-z]{1,40}$`));
}

/**
 * A timestamp as PostgreSQL writes a key column with microseconds
 * (`to_char(..., 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`), checked for its shape only: a day or hour
 * out of range passes (and PostgreSQL refuses it); `timestampKey` also checks the instant.
 */
export const timestampKeyShape = textMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

/**
 * A `timestampKeyShape` that names a real instant (month 13, February 30, hour 24 or year 0 do
 * not), so PostgreSQL never sees a timestamp it refuses.
 */
export const timestampKey: CursorField<string> = (value): value is string =>
  timestampKeyShape(value) && isRealInstant(value);

function isRealInstant(text: string): boolean {
  if (text.startsWith("0000")) return false;
  const millis = Date.parse(`${text.slice(0, 23)}Z`);
  return !Number.isNaN(millis) && new Date(millis).toISOString().slice(0, 19) === text.slice(0, 19);
}

const pageCursor = cursorCodec({ k: decimalId });

/**
 * Cursor of a list keyed by a decimal id (token, listing or audit row id): base64url of
 * `{"k":"<last key>"}`; the next page continues strictly below it.
 */
export function encodePageCursor(lastKey: string): string {
  return pageCursor.encode({ k: lastKey });
}

/** Decodes a cursor made by `encodePageCursor`; 400 `Invalid cursor` for anything else. */
export function decodePageCursor(cursor: string): string {
  return pageCursor.decode(cursor).k;
}

/** A page of results. `nextCursor` is null on the last page. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}
