"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { formatTime } from "../../lib/format";
import { useSignedIn } from "../../lib/session";
import type { ApiKeySummary, CreatedApiKey } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { ConfirmButton } from "../common/confirm-button";
import { SecretOnce } from "../common/secret-once";
import { DataTable } from "../common/data-table";
import { Notice } from "../common/states";
import { CreateKeyForm } from "./create-key-form";

/** API keys: the list (revoked ones included), creation with a show-once secret, revocation. */
export function KeysPanel() {
  const session = useSignedIn();
  const keys = useResource("keys", () =>
    api<{ keys: ApiKeySummary[] }>("GET", "/api/enterprise/keys"),
  );
  const [created, setCreated] = useState<CreatedApiKey | undefined>(undefined);
  const [result, setResult] = useState<{ kind: "ok" | "error"; text: string } | undefined>();

  const revoke = async (key: ApiKeySummary) => {
    setResult(undefined);
    try {
      await api("DELETE", `/api/enterprise/keys/${encodeURIComponent(key.keyId)}`);
      setResult({ kind: "ok", text: `Key ${key.label ?? key.prefix} revoked.` });
      keys.reload();
    } catch (error) {
      setResult({ kind: "error", text: messageOf(error) });
    }
  };

  return (
    <div className="stack">
      {created !== undefined && (
        <SecretOnce
          title={`New API key${created.label === null ? "" : ` “${created.label}”`}`}
          value={created.apiKey}
          onDismiss={() => setCreated(undefined)}
        />
      )}
      <CreateKeyForm
        heldScopes={session.scopes}
        onCreated={(key) => {
          setCreated(key);
          keys.reload();
        }}
      />
      <section className="card">
        <h2>Keys</h2>
        {result !== undefined && <Notice kind={result.kind}>{result.text}</Notice>}
        <DataTable
          caption="API keys"
          rows={keys.data?.keys}
          loading={keys.loading}
          error={keys.error}
          onRetry={keys.reload}
          rowKey={(key) => key.keyId}
          rowTestId={(key) => `key-row-${key.keyId}`}
          empty={{ title: "No keys yet" }}
          columns={[
            {
              id: "label",
              header: "Label",
              cell: (key) => key.label ?? <span className="muted">—</span>,
              sortValue: (key) => key.label ?? "",
            },
            {
              id: "key",
              header: "Key",
              cell: (key) => <code>{key.prefix}…</code>,
              copy: (key) => key.keyId,
            },
            {
              id: "scopes",
              header: "Scopes",
              cell: (key) => (
                <span className="tags">
                  {key.scopes.map((scope) => (
                    <span key={scope} className="tag">
                      {scope}
                    </span>
                  ))}
                </span>
              ),
            },
            {
              id: "created",
              header: "Created",
              cell: (key) => formatTime(key.createdAt),
              sortValue: (key) => key.createdAt,
            },
            {
              id: "used",
              header: "Last used",
              cell: (key) => formatTime(key.lastUsedAt),
              sortValue: (key) => key.lastUsedAt ?? "",
            },
            {
              id: "status",
              header: "Status",
              cell: (key) =>
                key.revokedAt === null ? (
                  <span className="status status-ok">active</span>
                ) : (
                  <span className="status status-off" title={formatTime(key.revokedAt)}>
                    revoked
                  </span>
                ),
              sortValue: (key) => (key.revokedAt === null ? 0 : 1),
            },
            {
              id: "actions",
              header: "Actions",
              hiddenHeader: true,
              cell: (key) =>
                key.revokedAt === null && (
                  <ConfirmButton
                    label="Revoke"
                    confirmLabel="Yes, revoke"
                    question="Revoke this key? Calls with it will fail."
                    onConfirm={() => revoke(key)}
                  />
                ),
            },
          ]}
        />
      </section>
    </div>
  );
}
