/**
 * The write tag: a few bytes appended after the ABI-encoded arguments of every transaction the
 * service sends for a write, naming the write, so that a database restored from a backup can
 * rebuild, from the chain alone, the rows of the writes mined after the backup
 * (`engine/chain-reconciler.ts`, docs/recovery.md "The write tag").
 *
 * The contracts ignore it: Solidity's ABI decoder reads each argument at its offset and only
 * checks that the calldata is long enough; none of the contracts reads `msg.data`, has a fallback,
 * or forwards its calldata (`test/relayer/recovery/write-tag.test.ts` sends every kind tagged).
 *
 * Layout (hex, read from the end):
 *
 * ```
 * kind (1) | write id (12) | [parent id (12) | item index (2)] | [key tag (12) | request tag (4)] | flags (1) | magic "rwa1" (4)
 * ```
 *
 * - kind: the index of the write kind in `TAGGED_KINDS`;
 * - write id: the 24 hex digits of the row's id (`tx_…`);
 * - flags bit 0: a batch item (its parent's id and its index follow);
 * - flags bit 1: the write was made with an `Idempotency-Key`: the first 12 bytes of the key's
 *   keyed hash (`writes/idempotency.ts` `idempotencyKeyTag`) and the first 4 bytes of the
 *   request hash follow (a retry with another body is told apart: 409).
 *
 * 18 bytes without a key, 34 with one, 48 for a batch item with one: at 16 gas a non-zero byte
 * of calldata, at most 288, 544 and 768 gas (docs/recovery.md gives what was measured).
 */

/** The write kinds a tag names, by index (a new kind goes at the end). */
export const TAGGED_KINDS = [
  "issue-asset",
  "batch-issue",
  "transfer",
  "list",
  "delist",
  "buy",
  "redeem-asset",
  "register-asset-type",
] as const;

/** `rwa1` in ASCII. */
const MAGIC = "72776131";
const ITEM = 1;
const KEYED = 2;

/** What a tag says. */
export interface WriteTag {
  kind: string;
  /** The row's id (`tx_…`). */
  id: string;
  /** A batch item's parent row and index. */
  parent?: { id: string; index: number };
  /** With an `Idempotency-Key`: its keyed hash's first 12 bytes, and the request hash's first 4 (hex). */
  key?: { keyTag: string; requestTag: string };
}

/** Hex digits of the key tag and of the request tag. */
export const KEY_TAG_HEX = 24;
export const REQUEST_TAG_HEX = 8;

function idHex(id: string): string {
  const hex = id.startsWith("tx_") ? id.slice(3) : "";
  if (!/^[0-9a-f]{24}$/.test(hex)) throw new TypeError(`not a write id: ${id}`);
  return hex;
}

/** The tag's hex (no `0x`) for a write. */
export function encodeWriteTag(tag: WriteTag): string {
  const kind = TAGGED_KINDS.indexOf(tag.kind as (typeof TAGGED_KINDS)[number]);
  if (kind < 0) throw new TypeError(`no tag for write kind ${tag.kind}`);
  let flags = 0;
  let body = kind.toString(16).padStart(2, "0") + idHex(tag.id);
  if (tag.parent !== undefined) {
    flags |= ITEM;
    body += idHex(tag.parent.id) + tag.parent.index.toString(16).padStart(4, "0");
  }
  if (tag.key !== undefined) {
    flags |= KEYED;
    const { keyTag, requestTag } = tag.key;
    if (!/^[0-9a-f]+$/.test(keyTag + requestTag)) throw new TypeError("key tags are hex");
    body += keyTag.slice(0, KEY_TAG_HEX).padStart(KEY_TAG_HEX, "0");
    body += requestTag.slice(0, REQUEST_TAG_HEX).padStart(REQUEST_TAG_HEX, "0");
  }
  return body + flags.toString(16).padStart(2, "0") + MAGIC;
}

/** `data` (0x-hex calldata, or `0x`) with the write's tag appended. */
export function tagCallData(data: string, tag: WriteTag): string {
  return data + encodeWriteTag(tag);
}

/** The byte length, in hex digits, of a tag with these flags. */
function tagHexLength(flags: number): number {
  return (
    2 + 24 + (flags & ITEM ? 24 + 4 : 0) + (flags & KEYED ? KEY_TAG_HEX + REQUEST_TAG_HEX : 0) + 10
  );
}

/**
 * The tag at the end of `data` and the calldata before it, or undefined when `data` carries none
 * (a cancelling self-transfer, a nonce filler, a transaction from before tags).
 */
export function readWriteTag(
  data: string | null | undefined,
): { tag: WriteTag; callData: string } | undefined {
  if (data === null || data === undefined) return undefined;
  const hex = data.toLowerCase().replace(/^0x/, "");
  if (hex.length < 10 + 26 || !hex.endsWith(MAGIC)) return undefined;
  const flags = parseInt(hex.slice(-10, -8), 16);
  if (flags > (ITEM | KEYED)) return undefined;
  const length = tagHexLength(flags);
  if (hex.length < length) return undefined;
  const body = hex.slice(hex.length - length, -10);
  const kind = TAGGED_KINDS[parseInt(body.slice(0, 2), 16)];
  if (kind === undefined) return undefined;
  const tag: WriteTag = { kind, id: `tx_${body.slice(2, 26)}` };
  let at = 26;
  if (flags & ITEM) {
    tag.parent = {
      id: `tx_${body.slice(at, at + 24)}`,
      index: parseInt(body.slice(at + 24, at + 28), 16),
    };
    at += 28;
  }
  if (flags & KEYED) {
    tag.key = {
      keyTag: body.slice(at, at + KEY_TAG_HEX),
      requestTag: body.slice(at + KEY_TAG_HEX, at + KEY_TAG_HEX + REQUEST_TAG_HEX),
    };
  }
  return { tag, callData: `0x${hex.slice(0, hex.length - length)}` };
}

/** `data` without its tag (what the write's call is; the gas book's shapes are of this). */
export function untaggedCallData(data: string | null): string | null {
  return readWriteTag(data)?.callData ?? data;
}
