import { OrgsPanel } from "../../ui/operator/orgs-panel";

/** Operator: organizations screen. */
export default function OperatorOrgsPage() {
  return (
    <>
      <h1>Organizations</h1>
      <OrgsPanel />
    </>
  );
}
