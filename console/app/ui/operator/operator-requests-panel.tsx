"use client";

import { api } from "../../lib/api";
import { useSignedIn } from "../../lib/session";
import type { ResponseBody } from "../../lib/types";
import { useAction } from "../../lib/use-action";
import { useResource } from "../../lib/use-resource";
import { actionsColumn, timeColumn, valueColumn } from "../common/columns";
import { ConfirmButton } from "../common/confirm-button";
import { DataTable, type Column } from "../common/data-table";
import { Panel } from "../common/panel";

type OperatorRequest = ResponseBody<"/api/enterprise/operator-requests", "get">["requests"][number];

/** Who may decide: a signed-in operator person with role compliance or operator-admin. */
export function canDecideOperatorRequests(role: string | undefined): boolean {
  return role === "compliance" || role === "operator-admin";
}

/**
 * Operator four-eyes (docs/people.md "Operator four-eyes"): the forced transfers, freezes and
 * unfreezes waiting for a second operator person. A signed-in compliance or operator-admin person
 * other than the one who asked approves (the act is carried out at once) or rejects (two steps).
 */
export function OperatorRequestsPanel() {
  const session = useSignedIn();
  const decide = canDecideOperatorRequests(session.person?.role);
  const requests = useResource("operator-requests", async () => {
    const body = await api<ResponseBody<"/api/enterprise/operator-requests", "get">>(
      "GET",
      "/api/enterprise/operator-requests",
    );
    return body.requests;
  });
  const action = useAction(requests.reload);

  const columns: ReadonlyArray<Column<OperatorRequest>> = [
    valueColumn("kind", "Act", (r) => `${r.kind} #${r.tokenId}`),
    {
      id: "request",
      header: "Request",
      cell: (r) => (
        <code>
          {r.request.toAddress === undefined ? "" : `to ${r.request.toAddress}, `}
          {r.request.reason}
        </code>
      ),
      wrap: true,
    },
    valueColumn("requested-by", "Requested by", (r) => r.requestedBy),
    timeColumn("expires", "Expires", (r) => r.expiresAt),
    actionsColumn((r) =>
      decide && r.requestedBy.startsWith(`${session.person?.userId ?? "-"} `) === false ? (
        <span className="row-actions">
          <ConfirmButton
            label="Approve"
            confirmLabel="Yes, carry it out"
            question={`Approve the ${r.kind} of token #${r.tokenId}? It is carried out at once.`}
            onConfirm={() =>
              action.run(`${r.kind} of token #${r.tokenId} approved and carried out.`, () =>
                api(
                  "POST",
                  `/api/enterprise/operator-requests/${encodeURIComponent(r.requestId)}/approve`,
                ),
              )
            }
          />
          <ConfirmButton
            label="Reject"
            confirmLabel="Yes, reject"
            question="Reject this request? Nothing is done."
            onConfirm={() =>
              action.run(`${r.kind} of token #${r.tokenId} rejected.`, () =>
                api(
                  "POST",
                  `/api/enterprise/operator-requests/${encodeURIComponent(r.requestId)}/reject`,
                ),
              )
            }
          />
        </span>
      ) : null,
    ),
  ];

  return (
    <Panel title="Waiting for a second operator" refresh={requests} notice={action.result}>
      {!decide && (
        <p className="muted">
          Only a signed-in operator person with role compliance or operator-admin, other than the
          one who asked, can approve or reject.
        </p>
      )}
      <DataTable
        caption="Operator requests waiting for approval"
        resource={requests}
        rowKey={(r) => r.requestId}
        rowTestId={(r) => `operator-request-${r.requestId}`}
        empty={{ title: "Nothing waits for a second operator" }}
        columns={columns}
      />
    </Panel>
  );
}
