import { WebhooksPanel } from "../ui/webhooks/webhooks-panel";

/** Webhooks screen. */
export default function WebhooksPage() {
  return (
    <>
      <h1>Webhooks</h1>
      <WebhooksPanel />
    </>
  );
}
