/**
 * People of an organization (docs/people.md): the roles a console user can hold. `owner`
 * everything, people and policy included; `admin` keys, webhooks, alerts and writes; `approver`
 * approve or reject held writes; `developer` keys without admin scopes, webhooks and reads;
 * `viewer` reads.
 */
export const ORG_ROLES = ["owner", "admin", "approver", "developer", "viewer"] as const;

/** One organization role. */
export type OrgRole = (typeof ORG_ROLES)[number];
