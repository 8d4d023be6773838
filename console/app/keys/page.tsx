import { KeysPanel } from "../ui/keys/keys-panel";

/** API keys screen. */
export default function KeysPage() {
  return (
    <>
      <h1>API keys</h1>
      <KeysPanel />
    </>
  );
}
