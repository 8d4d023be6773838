import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ValidationError } from "../../relayer/src/errors.js";
import {
  cursorCodec,
  decimalId,
  decodePageCursor,
  encodePageCursor,
  positiveInteger,
  prefixedId,
  timestampKey,
  timestampKeyShape,
} from "../../relayer/src/shared/cursor.js";

/** The cursor codecs of the lists, as their modules declare them. */
const historyCursor = cursorCodec({ b: positiveInteger });
const transactionCursor = cursorCodec({ t: timestampKey, i: prefixedId("tx") });
const orgCursor = cursorCodec({ t: timestampKeyShape, i: prefixedId("org") });

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64url");
const RUNS = { numRuns: 200 };

/** Asserts the API's one answer to a cursor that is not one of ours. */
function assertInvalid(decode: () => unknown, what: string): void {
  assert.throws(
    decode,
    (error: unknown) => error instanceof ValidationError && error.message === "Invalid cursor",
    what,
  );
}

const decimal = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }).map(String);
const block = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
/** Any instant PostgreSQL can store from year 1 to 9999, with microseconds. */
const instantKey = fc
  .tuple(
    fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z") }),
    fc.integer({ min: 0, max: 999 }),
  )
  .filter(([date]) => !Number.isNaN(date.getTime()))
  .map(([date, micros]) => `${date.toISOString().slice(0, 23)}${String(micros).padStart(3, "0")}Z`);
const rowId = (prefix: string) =>
  fc.stringMatching(/^[0-9a-z]{1,40}$/).map((s) => `${prefix}_${s}`);

describe("cursor codec: round trips", () => {
  it("decodePageCursor returns the id encodePageCursor was given, for any uint256 id", () => {
    fc.assert(
      fc.property(decimal, (id) => assert.equal(decodePageCursor(encodePageCursor(id)), id)),
      RUNS,
    );
  });

  it("a wallet-history cursor returns the block it was made for, for any positive safe integer", () => {
    fc.assert(
      fc.property(block, (b) =>
        assert.deepEqual(historyCursor.decode(historyCursor.encode({ b })), { b }),
      ),
      RUNS,
    );
  });

  it("a transaction or org cursor returns the created time and id it was made for", () => {
    fc.assert(
      fc.property(instantKey, rowId("tx"), rowId("org"), (t, tx, org) => {
        assert.deepEqual(transactionCursor.decode(transactionCursor.encode({ t, i: tx })), {
          t,
          i: tx,
        });
        assert.deepEqual(orgCursor.decode(orgCursor.encode({ t, i: org })), { t, i: org });
      }),
      RUNS,
    );
  });
});

describe("cursor codec: the wire formats stay what each list handed out", () => {
  it("encodes base64url of the JSON fields in the codec's order, whatever the position's order", () => {
    assert.equal(encodePageCursor("12345"), b64('{"k":"12345"}'));
    assert.equal(historyCursor.encode({ b: 7 }), b64('{"b":7}'));
    const t = "2026-01-31T23:59:59.999999Z";
    assert.equal(transactionCursor.encode({ i: "tx_abc", t }), b64(`{"t":"${t}","i":"tx_abc"}`));
    assert.equal(orgCursor.encode({ t, i: "org_1" }), b64(`{"t":"${t}","i":"org_1"}`));
  });

  it("decodes cursors written by hand in each list's format, ignoring fields it does not know", () => {
    assert.equal(decodePageCursor(b64('{"k":"99","x":1}')), "99");
    assert.deepEqual(historyCursor.decode(b64('{"b":42}')), { b: 42 });
    assert.deepEqual(
      transactionCursor.decode(b64('{"i":"tx_9","t":"2026-03-01T10:00:00.123456Z"}')),
      { t: "2026-03-01T10:00:00.123456Z", i: "tx_9" },
    );
  });
});

describe("cursor codec: anything else answers 400 Invalid cursor", () => {
  it("refuses strings that are not base64url of a JSON object", () => {
    for (const cursor of [
      "",
      "xyz",
      "!!!",
      "====",
      "eyJ0Ijo",
      b64("null"),
      b64("[]"),
      b64('"k"'),
      b64("7"),
    ])
      for (const decode of [decodePageCursor, historyCursor.decode, transactionCursor.decode])
        assertInvalid(() => decode(cursor), JSON.stringify(cursor));
  });

  it("refuses every list's cursor on another list (a page key is no block, a tx id no org id)", () => {
    const page = encodePageCursor("5");
    const history = historyCursor.encode({ b: 5 });
    const tx = transactionCursor.encode({ t: "2026-01-01T00:00:00.000000Z", i: "tx_1" });
    assertInvalid(() => historyCursor.decode(page), "page as history");
    assertInvalid(() => decodePageCursor(history), "history as page");
    assertInvalid(() => orgCursor.decode(tx), "tx as org");
    assertInvalid(() => transactionCursor.decode(page), "page as tx");
  });

  it("refuses tampered fields: negative, fractional, oversized or quoted numbers, foreign ids, SQL", () => {
    for (const k of ["-1", "1.5", "9".repeat(79), "1; drop", " 1", ""])
      assertInvalid(() => decodePageCursor(b64(JSON.stringify({ k }))), `k=${k}`);
    assertInvalid(() => decodePageCursor(b64('{"k":5}')), "k as a number");
    for (const b of [0, -4, 1.5, Number.MAX_SAFE_INTEGER + 1, "7", null])
      assertInvalid(() => historyCursor.decode(b64(JSON.stringify({ b }))), `b=${String(b)}`);
    const t = "2026-01-01T00:00:00.000000Z";
    for (const i of ["org_1", "tx_", "tx_ABC", `tx_${"a".repeat(41)}`, "'; DROP TABLE orgs; --"])
      assertInvalid(() => transactionCursor.decode(b64(JSON.stringify({ t, i }))), `i=${i}`);
    for (const bad of ["2026-01-01T00:00:00.000Z", "2026-01-01 00:00:00.000000Z", "yesterday"])
      assertInvalid(
        () => transactionCursor.decode(b64(JSON.stringify({ t: bad, i: "tx_1" }))),
        bad,
      );
  });

  it("refuses a transaction cursor naming an impossible instant; the org list checks only the shape", () => {
    for (const t of [
      "2026-13-01T00:00:00.000000Z",
      "2026-02-30T00:00:00.000000Z",
      "2026-01-01T24:00:00.000000Z",
      "0000-01-01T00:00:00.000000Z",
    ]) {
      assertInvalid(() => transactionCursor.decode(b64(JSON.stringify({ t, i: "tx_1" }))), t);
      assert.deepEqual(orgCursor.decode(b64(JSON.stringify({ t, i: "org_1" }))), { t, i: "org_1" });
    }
  });

  it("answers either a valid position or Invalid cursor, never another error, for any string", () => {
    const codecs = [
      [decodePageCursor, (k: unknown) => typeof k === "string" && decimalId(k)],
      [historyCursor.decode, (p: unknown) => positiveInteger((p as { b: unknown }).b)],
      [
        transactionCursor.decode,
        (p: unknown) =>
          timestampKey((p as { t: unknown }).t) && prefixedId("tx")((p as { i: unknown }).i),
      ],
    ] as const;
    const anyJson = fc.jsonValue({ maxDepth: 2 }).map((v) => b64(JSON.stringify(v)));
    const cursor = fc.oneof(fc.string(), fc.string({ unit: "binary" }), anyJson);
    fc.assert(
      fc.property(cursor, (value) => {
        for (const [decode, isValid] of codecs) {
          let decoded: unknown;
          try {
            decoded = decode(value);
          } catch (error) {
            assert.ok(error instanceof ValidationError, String(error));
            assert.equal(error.message, "Invalid cursor");
            continue;
          }
          assert.ok(isValid(decoded), `${value} decoded to ${JSON.stringify(decoded)}`);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("refuses a valid cursor with any one byte of its JSON changed, unless that still spells a valid one", () => {
    fc.assert(
      fc.property(
        instantKey,
        rowId("tx"),
        fc.nat(),
        fc.integer({ min: 32, max: 126 }),
        (t, i, at, code) => {
          const json = JSON.stringify({ t, i });
          const index = at % json.length;
          const tampered = `${json.slice(0, index)}${String.fromCharCode(code)}${json.slice(index + 1)}`;
          let decoded: { t: string; i: string };
          try {
            decoded = transactionCursor.decode(b64(tampered));
          } catch (error) {
            assert.ok(error instanceof ValidationError && error.message === "Invalid cursor");
            return;
          }
          assert.ok(timestampKey(decoded.t) && prefixedId("tx")(decoded.i), tampered);
        },
      ),
      RUNS,
    );
  });
});
