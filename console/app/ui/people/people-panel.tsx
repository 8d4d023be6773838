"use client";

import { useState } from "react";
import { api } from "../../lib/api";
import { invitePersonSchema, ORG_ROLES } from "../../lib/schemas";
import { useSignedIn } from "../../lib/session";
import type { ResponseBody } from "../../lib/types";
import { useAction } from "../../lib/use-action";
import { useForm } from "../../lib/use-form";
import { useResource } from "../../lib/use-resource";
import { actionsColumn } from "../common/columns";
import { ConfirmButton } from "../common/confirm-button";
import { DataTable, type Column } from "../common/data-table";
import { FormCard } from "../common/form-card";
import { Panel } from "../common/panel";
import { SecretOnce } from "../common/secret-once";
import { SelectField } from "../common/select-field";
import { TextField } from "../common/text-field";

type Person = ResponseBody<"/api/enterprise/users", "get">["users"][number];
type Invited = ResponseBody<"/api/enterprise/users", "post">;

/**
 * The organization's people (docs/people.md): the list with each one's role and whether they
 * accepted their invitation; inviting (the link is shown once); and, for an owner, changing a
 * role or removing someone, which ends their sessions.
 */
export function PeoplePanel() {
  const session = useSignedIn();
  const isOwner = session.person?.role === "owner";
  const people = useResource("people", async () => {
    const { users } = await api<ResponseBody<"/api/enterprise/users", "get">>(
      "GET",
      "/api/enterprise/users",
    );
    return users;
  });
  const [invited, setInvited] = useState<Invited | undefined>(undefined);
  const action = useAction(people.reload);
  const form = useForm(
    invitePersonSchema,
    { email: "", role: "viewer" },
    async (data) => {
      const answer = await api<Invited>("POST", "/api/enterprise/users", data);
      setInvited(answer);
      people.reload();
      return `${answer.email} invited as ${answer.role}.`;
    },
    { resetOnSuccess: ["email"] },
  );

  const columns: ReadonlyArray<Column<Person>> = [
    {
      id: "email",
      header: "Email",
      cell: (person) => (
        <>
          {person.email}
          {person.userId === session.person?.userId && <span className="badge">you</span>}
        </>
      ),
      sortValue: (person) => person.email,
    },
    {
      id: "role",
      header: "Role",
      cell: (person) =>
        isOwner && person.userId !== session.person?.userId ? (
          <select
            aria-label={`Role of ${person.email}`}
            value={person.role}
            onChange={(event) => {
              const role = event.target.value;
              void action.run(`${person.email} is now ${role}; their sessions ended.`, () =>
                api("PATCH", `/api/enterprise/users/${encodeURIComponent(person.userId)}`, {
                  role,
                }),
              );
            }}
          >
            {ORG_ROLES.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        ) : (
          person.role
        ),
      sortValue: (person) => person.role,
    },
    {
      id: "status",
      header: "Status",
      cell: (person) =>
        person.status === "active" ? "active" : <span className="muted">invited</span>,
      sortValue: (person) => person.status,
    },
    actionsColumn((person) =>
      isOwner && person.userId !== session.person?.userId ? (
        <ConfirmButton
          label="Remove"
          confirmLabel="Yes, remove"
          question={`Remove ${person.email}? Their sessions end now.`}
          onConfirm={() =>
            action.run(`${person.email} removed.`, () =>
              api("DELETE", `/api/enterprise/users/${encodeURIComponent(person.userId)}`),
            )
          }
        />
      ) : null,
    ),
  ];

  return (
    <div className="stack">
      {invited !== undefined && (
        <SecretOnce
          title={`Invitation link for ${invited.email} (valid until ${new Date(
            invited.invitation.expiresAt,
          ).toLocaleString()})`}
          value={invited.invitation.url}
          onDismiss={() => setInvited(undefined)}
        />
      )}
      <FormCard title="Invite a person" form={form} submit="Invite" busy="Inviting…">
        <TextField id="invite-email" label="Email" type="email" {...form.field("email")} />
        <SelectField
          id="invite-role"
          label="Role"
          options={isOwner ? ORG_ROLES : ORG_ROLES.filter((role) => role !== "owner")}
          {...form.field("role")}
        />
      </FormCard>
      <Panel title="People" notice={action.result}>
        <DataTable
          caption="People"
          resource={people}
          rowKey={(person) => person.userId}
          rowTestId={(person) => `person-row-${person.email}`}
          empty={{ title: "Nobody yet" }}
          columns={columns}
        />
      </Panel>
    </div>
  );
}
