"use client";

import { startRegistration } from "@simplewebauthn/browser";
import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { useSignedIn } from "../../lib/session";
import type { ResponseBody } from "../../lib/types";
import { useAction } from "../../lib/use-action";
import { useResource } from "../../lib/use-resource";
import { actionsColumn, timeColumn, valueColumn } from "../common/columns";
import { ConfirmButton } from "../common/confirm-button";
import { DataTable, type Column } from "../common/data-table";
import { Panel } from "../common/panel";
import { TextField } from "../common/text-field";

type OwnSession = ResponseBody<"/api/console/sessions", "get">["sessions"][number];
type Passkey = ResponseBody<"/api/console/passkeys", "get">["passkeys"][number];

/**
 * The signed-in person's own account (docs/people.md "Sessions" and "Passkeys"): their active
 * sessions (ending any but this one) and their factors: the authenticator app they enrolled with,
 * and passkeys, added here (the browser asks the authenticator) and removed in two steps.
 */
export function AccountPanel() {
  const session = useSignedIn();
  const sessions = useResource("own-sessions", async () => {
    const body = await api<ResponseBody<"/api/console/sessions", "get">>(
      "GET",
      "/api/console/sessions",
    );
    return body.sessions;
  });
  const keys = useResource("own-passkeys", async () => {
    const body = await api<ResponseBody<"/api/console/passkeys", "get">>(
      "GET",
      "/api/console/passkeys",
    );
    return body.passkeys;
  });
  const endSession = useAction(sessions.reload);
  const passkeyAction = useAction(keys.reload);
  const [name, setName] = useState("Passkey");
  const [adding, setAdding] = useState(false);

  if (session.person === null)
    return <p className="muted">Sessions and factors belong to people, not to keys.</p>;

  const addPasskey = () =>
    passkeyAction.run(`Passkey “${name.trim() || "Passkey"}” added.`, async () => {
      setAdding(true);
      try {
        const { challengeId, options } = await api<{ challengeId: string; options: unknown }>(
          "POST",
          "/api/console/passkeys/options",
        );
        const response = await startRegistration({
          optionsJSON: options as Parameters<typeof startRegistration>[0]["optionsJSON"],
        });
        return await api("POST", "/api/console/passkeys", {
          challengeId,
          response,
          name: name.trim() || "Passkey",
        });
      } catch (error) {
        throw new Error(`The passkey was not added: ${messageOf(error)}`);
      } finally {
        setAdding(false);
      }
    });

  const sessionColumns: ReadonlyArray<Column<OwnSession>> = [
    valueColumn("which", "Session", (s) => (s.current ? "This browser" : "Another sign-in")),
    timeColumn("created", "Signed in", (s) => s.createdAt),
    timeColumn("expires", "Ends unless used", (s) => s.expiresAt),
    actionsColumn((s) =>
      s.current ? null : (
        <ConfirmButton
          label="End"
          confirmLabel="Yes, end it"
          question="End this session? Its browser is signed out."
          onConfirm={() =>
            endSession.run("Session ended.", () =>
              api("DELETE", `/api/console/sessions/${encodeURIComponent(s.sessionId)}`),
            )
          }
        />
      ),
    ),
  ];
  const passkeyColumns: ReadonlyArray<Column<Passkey>> = [
    valueColumn("name", "Name", (p) => p.name),
    timeColumn("added", "Added", (p) => p.createdAt),
    timeColumn("used", "Last used", (p) => p.lastUsedAt),
    actionsColumn((p) => (
      <ConfirmButton
        label="Remove"
        confirmLabel="Yes, remove"
        question={`Remove the passkey “${p.name}”? It no longer signs you in.`}
        onConfirm={() =>
          passkeyAction.run(`Passkey “${p.name}” removed.`, () =>
            api("DELETE", `/api/console/passkeys/${encodeURIComponent(p.passkeyId)}`),
          )
        }
      />
    )),
  ];

  return (
    <div className="stack">
      <Panel title="Your sessions" refresh={sessions} notice={endSession.result}>
        <DataTable
          caption="Your active sessions"
          resource={sessions}
          rowKey={(s) => s.sessionId}
          rowTestId="own-session-row"
          empty={{ title: "No active session" }}
          columns={sessionColumns}
        />
      </Panel>
      <Panel title="Second factors" refresh={keys} notice={passkeyAction.result}>
        <p className="muted">
          Authenticator app: enrolled when you accepted your invitation. Passkeys sign you in on
          their own (with the device&apos;s PIN or fingerprint).
        </p>
        <div className="form">
          <TextField
            id="passkey-name"
            label="Name of a new passkey"
            value={name}
            onChange={setName}
            error={undefined}
          />
          <button
            type="button"
            className="button button-primary"
            disabled={adding}
            onClick={() => void addPasskey()}
          >
            {adding ? "Waiting for the authenticator…" : "Add a passkey"}
          </button>
        </div>
        <DataTable
          caption="Your passkeys"
          resource={keys}
          rowKey={(p) => p.passkeyId}
          rowTestId="passkey-row"
          empty={{ title: "No passkey yet" }}
          columns={passkeyColumns}
        />
      </Panel>
    </div>
  );
}
