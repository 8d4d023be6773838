/**
 * People of an organization (docs/people.md): the roles a console user can hold. `owner`
 * everything, people and policy included; `admin` keys, webhooks, alerts and writes; `approver`
 * approve or reject held writes; `developer` keys without admin scopes, webhooks and reads;
 * `viewer` reads.
 */
export const ORG_ROLES = ["owner", "admin", "approver", "developer", "viewer"] as const;

/** One organization role. */
export type OrgRole = (typeof ORG_ROLES)[number];

/**
 * Operator staff (docs/people.md "Operator staff"): `operator-admin` every operator route;
 * `compliance` reads, the compliance controls and deciding operator requests (four-eyes);
 * `support` reads only. They belong to no organization.
 */
export const OPERATOR_ROLES = ["operator-admin", "compliance", "support"] as const;

/** One operator role. */
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** Every role a person can hold: an organization's or the operator's. */
export const PERSON_ROLES = [...ORG_ROLES, ...OPERATOR_ROLES] as const;

/** One role of a person. */
export type PersonRole = (typeof PERSON_ROLES)[number];

/** Whether `role` is operator staff's. */
export function isOperatorRole(role: string): role is OperatorRole {
  return (OPERATOR_ROLES as readonly string[]).includes(role);
}
