"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { formatTime } from "../../lib/format";
import { useSignedIn } from "../../lib/session";
import type { ApiKeySummary, CreatedApiKey } from "../../lib/types";
import { useResource } from "../../lib/use-resource";
import { ConfirmButton } from "../common/confirm-button";
import { SecretOnce } from "../common/secret-once";
import { EmptyState, ErrorState, Loading, Notice } from "../common/states";
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
        {keys.loading && keys.data === undefined ? (
          <Loading label="Loading keys…" />
        ) : keys.error !== undefined ? (
          <ErrorState message={keys.error} onRetry={keys.reload} />
        ) : keys.data === undefined || keys.data.keys.length === 0 ? (
          <EmptyState title="No keys yet" />
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Label</th>
                  <th>Key</th>
                  <th>Scopes</th>
                  <th>Created</th>
                  <th>Last used</th>
                  <th>Status</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {keys.data.keys.map((key) => (
                  <tr key={key.keyId} data-testid={`key-row-${key.keyId}`}>
                    <td>{key.label ?? <span className="muted">—</span>}</td>
                    <td>
                      <code>{key.prefix}…</code>
                    </td>
                    <td>
                      <span className="tags">
                        {key.scopes.map((scope) => (
                          <span key={scope} className="tag">
                            {scope}
                          </span>
                        ))}
                      </span>
                    </td>
                    <td>{formatTime(key.createdAt)}</td>
                    <td>{formatTime(key.lastUsedAt)}</td>
                    <td>
                      {key.revokedAt === null ? (
                        <span className="status status-ok">active</span>
                      ) : (
                        <span className="status status-off" title={formatTime(key.revokedAt)}>
                          revoked
                        </span>
                      )}
                    </td>
                    <td>
                      {key.revokedAt === null && (
                        <ConfirmButton
                          label="Revoke"
                          confirmLabel="Yes, revoke"
                          question="Revoke this key? Calls with it will fail."
                          onConfirm={() => revoke(key)}
                        />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
