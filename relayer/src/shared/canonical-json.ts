/**
 * Canonical JSON: object keys sorted by UTF-16 code unit, no insignificant whitespace, arrays in
 * order, object members whose value is `undefined` left out, strings and numbers as
 * `JSON.stringify` writes them. The same value always encodes to the same text: a metadata
 * document to the same bytes (hence the same CID), a request body to the same idempotency hash,
 * and an audit row read back from its `jsonb` column to the text its writer hashed.
 *
 * @example canonicalJson({ b: 1, a: [{ y: 2, x: undefined }] }) // '{"a":[{"y":2}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
