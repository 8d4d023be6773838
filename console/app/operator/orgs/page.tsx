import { Suspense } from "react";
import { Loading } from "../../ui/common/states";
import { OrgsPanel } from "../../ui/operator/orgs-panel";

/** Operator: organizations screen. */
export default function OperatorOrgsPage() {
  return (
    <>
      <h1>Organizations</h1>
      <Suspense fallback={<Loading label="Loading organizations…" />}>
        <OrgsPanel />
      </Suspense>
    </>
  );
}
