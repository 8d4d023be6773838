import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseEther } from "ethers";
import { DEFAULT_POLICY, type OrgPolicy } from "../../relayer/src/domain/policy.js";
import { approvalsNeeded } from "../../relayer/src/policy/approvals.js";

/** Which writes the policy's approval rules hold, and for how many people (docs/policy.md). */
describe("approvalsNeeded", () => {
  const treasury = "0x00000000000000000000000000000000000000aa";
  const policy = (approvals: OrgPolicy["approvals"]): OrgPolicy => ({
    ...DEFAULT_POLICY,
    destinations: { mode: "any", allowlist: [{ address: treasury, label: "T" }] },
    approvals,
  });
  const q = (kind: string, destinations: string[] = [], price?: string) => ({
    kind,
    destinations,
    priceWei: price === undefined ? undefined : parseEther(price),
  });

  it("holds nothing without rules, and only the kinds a rule names", () => {
    assert.equal(approvalsNeeded(DEFAULT_POLICY, q("transfer", ["0x01"])), 0);
    const p = policy([{ kinds: ["transfer"], when: "always", approvers: 1 }]);
    assert.equal(approvalsNeeded(p, q("issue-asset")), 0);
    assert.equal(approvalsNeeded(p, q("transfer", [treasury])), 1);
  });

  it("outside-allowlist holds a destination off the list, compared case-insensitively", () => {
    const p = policy([{ kinds: ["transfer"], when: "outside-allowlist", approvers: 2 }]);
    assert.equal(
      approvalsNeeded(p, q("transfer", [treasury.toUpperCase().replace("0X", "0x")])),
      0,
    );
    assert.equal(
      approvalsNeeded(p, q("transfer", ["0x00000000000000000000000000000000000000bb"])),
      2,
    );
  });

  it("priceAboveCOIN holds a price above it, and a buy that names no price", () => {
    const p = policy([{ kinds: ["list", "buy"], when: { priceAboveCOIN: "10" }, approvers: 1 }]);
    assert.equal(approvalsNeeded(p, q("list", [], "10")), 0);
    assert.equal(approvalsNeeded(p, q("list", [], "10.000000000000000001")), 1);
    assert.equal(approvalsNeeded(p, q("buy", [], "2")), 0);
    assert.equal(approvalsNeeded(p, q("buy")), 1);
  });

  it("the largest count of the rules that hold a write applies", () => {
    const p = policy([
      { kinds: ["transfer"], when: "always", approvers: 1 },
      { kinds: ["transfer"], when: "outside-allowlist", approvers: 2 },
    ]);
    assert.equal(approvalsNeeded(p, q("transfer", [treasury])), 1);
    assert.equal(
      approvalsNeeded(p, q("transfer", ["0x00000000000000000000000000000000000000bb"])),
      2,
    );
  });
});
