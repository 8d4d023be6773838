import { CompliancePanel } from "../../ui/operator/compliance-panel";

/** Operator: compliance controls (freeze, forced transfer, market pause, restricted types, allowlist). */
export default function OperatorCompliancePage() {
  return (
    <>
      <h1>Compliance</h1>
      <CompliancePanel />
    </>
  );
}
