"use client";

import { useState } from "react";
import { api } from "../../lib/api";
import { useSignedIn } from "../../lib/session";
import type { ApiKeySummary, CreatedApiKey, ResponseBody } from "../../lib/types";
import { useAction } from "../../lib/use-action";
import { useResource } from "../../lib/use-resource";
import { actionsColumn, tagsColumn, timeColumn } from "../common/columns";
import { ConfirmButton } from "../common/confirm-button";
import { DataTable, type Column } from "../common/data-table";
import { Panel } from "../common/panel";
import { SecretOnce } from "../common/secret-once";
import { CreateKeyForm } from "./create-key-form";
import { keyStatusColumn } from "./key-status";

/** API keys: the list (revoked ones included), creation with a show-once secret, revocation. */
export function KeysPanel() {
  const session = useSignedIn();
  const keys = useResource("keys", async () => {
    const { keys } = await api<ResponseBody<"/api/enterprise/keys", "get">>(
      "GET",
      "/api/enterprise/keys",
    );
    return keys;
  });
  const [created, setCreated] = useState<CreatedApiKey | undefined>(undefined);
  const action = useAction(keys.reload);

  const columns: ReadonlyArray<Column<ApiKeySummary>> = [
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
    tagsColumn("scopes", "Scopes", (key) => key.scopes),
    timeColumn("created", "Created", (key) => key.createdAt),
    timeColumn("used", "Last used", (key) => key.lastUsedAt),
    timeColumn("expires", "Expires", (key) => key.expiresAt),
    keyStatusColumn(),
    actionsColumn((key) =>
      key.revokedAt === null ? (
        <ConfirmButton
          label="Revoke"
          confirmLabel="Yes, revoke"
          question="Revoke this key? Calls with it will fail."
          onConfirm={() =>
            action.run(`Key ${key.label ?? key.prefix} revoked.`, () =>
              api("DELETE", `/api/enterprise/keys/${encodeURIComponent(key.keyId)}`),
            )
          }
        />
      ) : null,
    ),
  ];

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
      <Panel title="Keys" notice={action.result}>
        <DataTable
          caption="API keys"
          resource={keys}
          rowKey={(key) => key.keyId}
          rowTestId={(key) => `key-row-${key.keyId}`}
          empty={{ title: "No keys yet" }}
          columns={columns}
        />
      </Panel>
    </div>
  );
}
