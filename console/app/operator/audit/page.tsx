import { Suspense } from "react";
import { Loading } from "../../ui/common/states";
import { AuditLogPanel } from "../../ui/audit/audit-log-panel";

/** Operator: every organization's audit log. */
export default function OperatorAuditPage() {
  return (
    <>
      <h1>Audit log</h1>
      <Suspense fallback={<Loading label="Loading the audit log…" />}>
        <AuditLogPanel operator />
      </Suspense>
    </>
  );
}
