import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseCid } from "../../relayer/src/metadata/cid.js";
import { canonicalJson } from "../../relayer/src/shared/canonical-json.js";

describe("CIDs and canonical JSON", () => {
  it("parses v0 and v1 CIDs into the contract's parts and refuses others", () => {
    const v0 = parseCid("QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG").parts;
    assert.deepEqual([v0.version, v0.codec, v0.hashCode], [0, 0x70n, 0x12]);
    const v1 = parseCid("bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi").parts;
    assert.deepEqual([v1.version, v1.codec, v1.hashCode], [1, 0x70n, 0x12]);
    assert.throws(() => parseCid("hello"), /Invalid field: ipfsHash/);
    assert.throws(() => parseCid("bafkqaaa"), /32-byte digests/); // identity hash, empty digest
  });
  it("canonical JSON sorts keys and drops undefined", () => {
    assert.equal(canonicalJson({ b: 1, a: [{ y: 2, x: undefined }] }), '{"a":[{"y":2}],"b":1}');
  });
});
