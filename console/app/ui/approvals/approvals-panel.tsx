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

type Held = ResponseBody<"/api/enterprise/approvals", "get">["approvals"][number];

/** Who may decide: a signed-in approver or owner (docs/people.md). */
export function canDecide(role: string | undefined): boolean {
  return role === "approver" || role === "owner";
}

/** The request of a held write in one line: its fields as `name: value`. */
function describeRequest(request: Record<string, unknown>): string {
  return Object.entries(request)
    .map(([name, value]) => `${name}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");
}

/**
 * Writes the policy holds (docs/policy.md "Approvals"), still waiting: what each asks for, who
 * asked, who has approved and until when. A signed-in approver or owner approves or rejects
 * (rejecting in two steps); once enough people approve, the write is recorded and sent, and it
 * shows on the Transactions screen.
 */
export function ApprovalsPanel() {
  const session = useSignedIn();
  const decide = canDecide(session.person?.role);
  const held = useResource("approvals", async () => {
    const { approvals } = await api<ResponseBody<"/api/enterprise/approvals", "get">>(
      "GET",
      "/api/enterprise/approvals",
    );
    return approvals;
  });
  const action = useAction(held.reload);

  const columns: ReadonlyArray<Column<Held>> = [
    valueColumn("kind", "Kind", (h) => h.kind),
    {
      id: "request",
      header: "Request",
      cell: (h) => <code>{describeRequest(h.request)}</code>,
      wrap: true,
    },
    valueColumn("requested-by", "Requested by", (h) => h.requestedBy),
    {
      id: "approvals",
      header: "Approvals",
      cell: (h) =>
        `${h.approvals.length} of ${h.approvalsRequired}` +
        (h.approvals.length === 0 ? "" : ` (${h.approvals.map((a) => a.email).join(", ")})`),
    },
    timeColumn("expires", "Expires", (h) => h.expiresAt),
    actionsColumn((h) =>
      decide ? (
        <span className="row-actions">
          <button
            type="button"
            className="button button-small button-primary"
            onClick={() =>
              void action.run(`${h.kind} ${h.transactionId} approved.`, () =>
                api("POST", `/api/v1/transactions/${encodeURIComponent(h.transactionId)}/approve`),
              )
            }
          >
            Approve
          </button>
          <ConfirmButton
            label="Reject"
            confirmLabel="Yes, reject"
            question="Reject this write? It will not be sent."
            onConfirm={() =>
              action.run(`${h.kind} ${h.transactionId} rejected.`, () =>
                api("POST", `/api/v1/transactions/${encodeURIComponent(h.transactionId)}/reject`),
              )
            }
          />
        </span>
      ) : null,
    ),
  ];

  return (
    <Panel title="Waiting for approval" notice={action.result}>
      {!decide && (
        <p className="muted">Only a signed-in approver or owner can approve or reject.</p>
      )}
      <DataTable
        caption="Writes waiting for approval"
        resource={held}
        rowKey={(h) => h.transactionId}
        rowTestId={(h) => `held-row-${h.transactionId}`}
        empty={{ title: "Nothing waits for approval" }}
        columns={columns}
      />
    </Panel>
  );
}
