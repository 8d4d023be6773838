import { AccountPanel } from "../ui/account/account-panel";

/** A signed-in person's own sessions and second factors. */
export default function AccountPage() {
  return (
    <>
      <h1>Account</h1>
      <AccountPanel />
    </>
  );
}
