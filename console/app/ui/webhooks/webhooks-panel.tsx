"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { formatTime } from "../../lib/format";
import type { CreatedWebhook, WebhookSummary } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { ConfirmButton } from "../common/confirm-button";
import { SecretOnce } from "../common/secret-once";
import { EmptyState, ErrorState, Loading, Notice } from "../common/states";
import { CreateWebhookForm } from "./create-webhook-form";
import { DeliveryLog } from "./delivery-log";

/** Webhooks: list, register (secret shown once), delete, and each one's delivery log. */
export function WebhooksPanel() {
  const hooks = useResource("webhooks", () =>
    api<{ webhooks: WebhookSummary[] }>("GET", "/api/enterprise/webhooks"),
  );
  const [created, setCreated] = useState<CreatedWebhook | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const [result, setResult] = useState<{ kind: "ok" | "error"; text: string } | undefined>();

  const remove = async (hook: WebhookSummary) => {
    setResult(undefined);
    try {
      await api("DELETE", `/api/enterprise/webhooks/${encodeURIComponent(hook.webhookId)}`);
      setResult({ kind: "ok", text: `Webhook ${hook.url} deleted.` });
      if (open === hook.webhookId) setOpen(undefined);
      hooks.reload();
    } catch (error) {
      setResult({ kind: "error", text: messageOf(error) });
    }
  };

  return (
    <div className="stack">
      {created !== undefined && (
        <SecretOnce
          title={`Signing secret of ${created.url}`}
          value={created.secret}
          onDismiss={() => setCreated(undefined)}
        />
      )}
      <CreateWebhookForm
        onCreated={(hook) => {
          setCreated(hook);
          setOpen(hook.webhookId);
          hooks.reload();
        }}
      />
      <section className="card">
        <h2>Webhooks</h2>
        {result !== undefined && <Notice kind={result.kind}>{result.text}</Notice>}
        {hooks.loading && hooks.data === undefined ? (
          <Loading label="Loading webhooks…" />
        ) : hooks.error !== undefined ? (
          <ErrorState message={hooks.error} onRetry={hooks.reload} />
        ) : hooks.data === undefined || hooks.data.webhooks.length === 0 ? (
          <EmptyState title="No webhooks yet">
            <p className="muted">Register one above to receive signed events.</p>
          </EmptyState>
        ) : (
          <ul className="hook-list">
            {hooks.data.webhooks.map((hook) => (
              <li key={hook.webhookId} className="hook" data-testid={`webhook-${hook.webhookId}`}>
                <div className="hook-head">
                  <div>
                    <code className="hook-url">{hook.url}</code>
                    <p className="muted">
                      {hook.events.join(", ")} · created {formatTime(hook.createdAt)} ·{" "}
                      {hook.enabled ? "enabled" : "disabled"}
                    </p>
                  </div>
                  <div className="hook-actions">
                    <button
                      type="button"
                      className="button button-small"
                      aria-expanded={open === hook.webhookId}
                      onClick={() =>
                        setOpen((current) =>
                          current === hook.webhookId ? undefined : hook.webhookId,
                        )
                      }
                    >
                      {open === hook.webhookId ? "Hide deliveries" : "Deliveries"}
                    </button>
                    <ConfirmButton
                      label="Delete"
                      confirmLabel="Yes, delete"
                      question="Delete this webhook?"
                      onConfirm={() => remove(hook)}
                    />
                  </div>
                </div>
                {open === hook.webhookId && <DeliveryLog webhookId={hook.webhookId} />}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
