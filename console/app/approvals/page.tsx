import { ApprovalsPanel } from "../ui/approvals/approvals-panel";

/** Approvals screen: the writes the organization's policy holds until people approve them. */
export default function ApprovalsPage() {
  return (
    <>
      <h1>Approvals</h1>
      <ApprovalsPanel />
    </>
  );
}
