"use client";

import { useState } from "react";
import { api } from "../../lib/api";
import { formatTime } from "../../lib/format";
import type {
  CreatedWebhook,
  ResponseBody,
  RotatedWebhookSecret,
  WebhookSummary,
} from "../../lib/types";
import { useAction } from "../../lib/use-action";
import { useResource } from "../../lib/use-resource";
import { ConfirmButton } from "../common/confirm-button";
import { SecretOnce } from "../common/secret-once";
import { Panel } from "../common/panel";
import { EmptyState, Notice, ResourceView } from "../common/states";
import { CreateWebhookForm } from "./create-webhook-form";
import { DeliveryLog } from "./delivery-log";
import { WebhookControls } from "./webhook-controls";

/**
 * Webhooks: list, register (secret shown once), delete, each one's delivery log and controls
 * (event filter, replay, secret rotation), and a banner for each disabled webhook (the same
 * notice its siblings received as `webhook.disabled`).
 */
export function WebhooksPanel() {
  const hooks = useResource("webhooks", async () => {
    const { webhooks } = await api<ResponseBody<"/api/enterprise/webhooks", "get">>(
      "GET",
      "/api/enterprise/webhooks",
    );
    return webhooks;
  });
  const [created, setCreated] = useState<CreatedWebhook | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const [rotated, setRotated] = useState<(RotatedWebhookSecret & { url: string }) | undefined>(
    undefined,
  );
  const action = useAction(hooks.reload);

  const remove = (hook: WebhookSummary) =>
    action.run(`Webhook ${hook.url} deleted.`, async () => {
      await api("DELETE", `/api/enterprise/webhooks/${encodeURIComponent(hook.webhookId)}`);
      if (open === hook.webhookId) setOpen(undefined);
    });

  return (
    <div className="stack">
      {created !== undefined && (
        <SecretOnce
          title={`Signing secret of ${created.url}`}
          value={created.secret}
          onDismiss={() => setCreated(undefined)}
        />
      )}
      {rotated !== undefined && (
        <SecretOnce
          title={`New signing secret of ${rotated.url} (the previous one signs until ${formatTime(rotated.previousSecretExpiresAt)})`}
          value={rotated.secret}
          onDismiss={() => setRotated(undefined)}
        />
      )}
      {(hooks.data ?? [])
        .filter((hook) => !hook.enabled && hook.disabledReason !== null)
        .map((hook) => (
          <Notice key={`disabled-${hook.webhookId}`} kind="error">
            Webhook {hook.url} was disabled {formatTime(hook.disabledAt)}: {hook.disabledReason}.
            Your other webhooks received a webhook.disabled event.
          </Notice>
        ))}
      <CreateWebhookForm
        onCreated={(hook) => {
          setCreated(hook);
          setOpen(hook.webhookId);
          hooks.reload();
        }}
      />
      <Panel title="Webhooks" notice={action.result}>
        <ResourceView
          resource={hooks}
          loadingLabel="Loading webhooks…"
          isEmpty={(webhooks) => webhooks.length === 0}
          empty={
            <EmptyState title="No webhooks yet">
              <p className="muted">Register one above to receive signed events.</p>
            </EmptyState>
          }
        >
          {(webhooks) => (
            <ul className="hook-list">
              {webhooks.map((hook) => (
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
                      <button
                        type="button"
                        className="button button-small"
                        aria-expanded={editing === hook.webhookId}
                        onClick={() =>
                          setEditing((current) =>
                            current === hook.webhookId ? undefined : hook.webhookId,
                          )
                        }
                      >
                        {editing === hook.webhookId ? "Hide settings" : "Settings"}
                      </button>
                      <ConfirmButton
                        label="Delete"
                        confirmLabel="Yes, delete"
                        question="Delete this webhook?"
                        onConfirm={() => remove(hook)}
                      />
                    </div>
                  </div>
                  {editing === hook.webhookId && (
                    <WebhookControls
                      hook={hook}
                      onChanged={hooks.reload}
                      onRotated={(secret) => setRotated({ ...secret, url: hook.url })}
                    />
                  )}
                  {open === hook.webhookId && <DeliveryLog webhookId={hook.webhookId} />}
                </li>
              ))}
            </ul>
          )}
        </ResourceView>
      </Panel>
    </div>
  );
}
