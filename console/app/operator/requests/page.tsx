import { OperatorRequestsPanel } from "../../ui/operator/operator-requests-panel";

/** Operator: forced transfers, freezes and unfreezes waiting for a second operator person. */
export default function OperatorRequestsPage() {
  return (
    <>
      <h1>Requests</h1>
      <OperatorRequestsPanel />
    </>
  );
}
