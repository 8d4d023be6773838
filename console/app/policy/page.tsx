import { PolicyPanel } from "../ui/policy/policy-panel";

/** Policy screen: the organization's destination allowlist, transfer limit and approval rules. */
export default function PolicyPage() {
  return (
    <>
      <h1>Policy</h1>
      <PolicyPanel />
    </>
  );
}
