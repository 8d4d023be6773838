import type { AnyRouteDefinition } from "../route-definition.js";
import {
  createKeyRoute,
  listKeysRoute,
  revokeKeyByPathRoute,
  revokeKeyRoute,
} from "./enterprise-keys.js";
import { auditLogRoute } from "./enterprise-audit-log.js";
import { COMPLIANCE_ROUTES } from "./enterprise-compliance.js";
import { rescueRoute } from "./enterprise-marketplace.js";
import { ORG_CONTROL_ROUTES } from "./enterprise-orgs.js";
import { getPolicyRoute, putPolicyRoute } from "./enterprise-policy.js";
import { registerRoute } from "./enterprise-register.js";
import {
  acceptInvitationRoute,
  changeRoleRoute,
  invitePersonRoute,
  listPeopleRoute,
  removePersonRoute,
} from "./enterprise-users.js";
import { getWalletAlertsRoute, putWalletAlertsRoute, walletRoute } from "./enterprise-wallet.js";
import {
  createWebhookRoute,
  deleteWebhookByPathRoute,
  deleteWebhookRoute,
  listWebhooksRoute,
  rotateWebhookSecretRoute,
  updateWebhookRoute,
} from "./enterprise-webhooks.js";
import { healthRoute } from "./health.js";
import { OPERATOR_REQUEST_ROUTES } from "./operator-requests.js";
import { ORG_READ_ROUTES } from "./org-reads.js";
import { READ_ROUTES } from "./read.js";
import { rootRoute } from "./root.js";
import { SESSION_ROUTES } from "./session.js";
import { SESSION_OPERATOR_ROUTES } from "./session-operator.js";
import { WEBHOOK_DELIVERY_ROUTES } from "./webhook-deliveries.js";
import { WRITE_API_ROUTES } from "./write.js";

/** Service routes without authentication. */
export const SYSTEM_ROUTES: readonly AnyRouteDefinition[] = [rootRoute, healthRoute];

/** `/api/enterprise` management routes (docs/api-decisions.md; reference at /docs). */
export const MANAGEMENT_ROUTES: readonly AnyRouteDefinition[] = [
  registerRoute,
  walletRoute,
  getWalletAlertsRoute,
  putWalletAlertsRoute,
  listKeysRoute,
  createKeyRoute,
  revokeKeyRoute,
  revokeKeyByPathRoute,
  listWebhooksRoute,
  createWebhookRoute,
  deleteWebhookRoute,
  deleteWebhookByPathRoute,
  updateWebhookRoute,
  rotateWebhookSecretRoute,
  getPolicyRoute,
  putPolicyRoute,
  listPeopleRoute,
  invitePersonRoute,
  changeRoleRoute,
  removePersonRoute,
  rescueRoute,
  ...ORG_CONTROL_ROUTES,
  auditLogRoute,
  ...COMPLIANCE_ROUTES,
  ...OPERATOR_REQUEST_ROUTES,
];

/** `/api/console` routes: session sign-in/out and the operator console's own endpoints. */
export const CONSOLE_ROUTES: readonly AnyRouteDefinition[] = [
  ...SESSION_ROUTES,
  acceptInvitationRoute,
  ...SESSION_OPERATOR_ROUTES,
];

/**
 * The route registry: every API route (method, path, auth and scopes, zod schemas, handler,
 * docs), once each, in the order the reference page lists them (no two overlap, so the mount
 * order does not matter). Express (`app.ts`), the OpenAPI document and the Postman
 * collection made from it, the authorization-matrix test and the console's path check all read
 * this table; a new route group is added here and nowhere else.
 */
export const ROUTES: readonly AnyRouteDefinition[] = [
  ...SYSTEM_ROUTES,
  ...MANAGEMENT_ROUTES,
  ...ORG_READ_ROUTES,
  ...CONSOLE_ROUTES,
  ...READ_ROUTES,
  ...WRITE_API_ROUTES,
  ...WEBHOOK_DELIVERY_ROUTES,
];
