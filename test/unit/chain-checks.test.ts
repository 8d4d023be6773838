import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { COMPLIANCE_REASONS, complianceRefusal } from "../../relayer/src/writes/chain-checks.js";

/**
 * The compliance pre-checks' decision (docs/contracts.md "Compliance controls"): from what the
 * chain says about a move, the 400 a write or a forced transfer answers, or none. The reads
 * behind it run against anvil in test/relayer/compliance.
 */
describe("complianceRefusal: the reason a move is refused", () => {
  it("returns undefined when nothing is paused, frozen or restricted", () => {
    assert.equal(complianceRefusal({}), undefined);
    assert.equal(
      complianceRefusal({
        paused: false,
        frozen: false,
        restricted: false,
        recipientAllowed: false,
      }),
      undefined,
    );
  });

  it("returns 'Transfers are paused' when transfers are paused, whatever else holds", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (frozen, restricted, recipientAllowed) =>
          assert.equal(
            complianceRefusal({ paused: true, frozen, restricted, recipientAllowed }),
            "Transfers are paused",
          ),
      ),
    );
  });

  it("returns 'Asset is frozen' when the token is frozen and transfers are not paused", () => {
    assert.equal(
      complianceRefusal({ paused: false, frozen: true, restricted: true, recipientAllowed: false }),
      "Asset is frozen",
    );
  });

  it("returns the recipient reason when the type is restricted and the recipient is not allowlisted", () => {
    assert.equal(
      complianceRefusal({ restricted: true, recipientAllowed: false }),
      "Recipient is not allowed to hold this asset type",
    );
    assert.equal(complianceRefusal({ restricted: true }), COMPLIANCE_REASONS.recipient);
  });

  it("returns undefined when the type is restricted and the recipient is allowlisted", () => {
    assert.equal(complianceRefusal({ restricted: true, recipientAllowed: true }), undefined);
  });

  it("ignores the allowlist for a type that is not restricted", () => {
    assert.equal(complianceRefusal({ restricted: false, recipientAllowed: false }), undefined);
  });
});
