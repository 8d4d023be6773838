import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { hexlify } from "ethers";
import { encodeMint } from "../../relayer/src/chain/contracts/call-data.js";
import { assetTokenInterface } from "../../relayer/src/chain/contracts/bindings.js";

/**
 * The issuance path's calldata (selector resolved once, arguments through AbiCoder) is byte for
 * byte what `Interface.encodeFunctionData` encodes from the same ABI.
 */
describe("encodeMint", () => {
  const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => hexlify(b));
  const cid = fc.record({
    digest: bytes32,
    version: fc.integer({ min: 0, max: 255 }),
    codec: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
    hashCode: fc.integer({ min: 0, max: 65_535 }),
  });

  it("equals ethers' Interface.encodeFunctionData for any type name, CID and password hash", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), cid, bytes32, (name, c, hash) => {
        assert.equal(
          encodeMint(name, c, hash),
          assetTokenInterface.encodeFunctionData("mint", [name, c, hash]),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("refuses a digest or password hash that is not hex", () => {
    const c = { digest: "0x" + "zz".repeat(32), version: 1, codec: 0x55n, hashCode: 0x12 };
    assert.throws(() => encodeMint("Bond", c, "0x" + "00".repeat(32)), /cid.digest is not hex/);
    assert.throws(
      () => encodeMint("Bond", { ...c, digest: "0x" + "11".repeat(32) }, "nope"),
      /passwordHash is not hex/,
    );
  });
});
