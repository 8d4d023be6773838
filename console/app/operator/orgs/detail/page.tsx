import { Suspense } from "react";
import { OrgDetailPanel } from "../../../ui/operator/org-detail";
import { Loading } from "../../../ui/common/states";

/**
 * Operator: one organization's controls, `/operator/orgs/detail/?orgId=<id>` (a query string, so
 * the static export has one page).
 */
export default function OperatorOrgDetailPage() {
  return (
    <Suspense fallback={<Loading label="Loading the organization…" />}>
      <OrgDetailPanel />
    </Suspense>
  );
}
