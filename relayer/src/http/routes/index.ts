import type { AnyRouteDefinition } from "../route-definition.js";
import {
  createKeyRoute,
  listKeysRoute,
  revokeKeyByPathRoute,
  revokeKeyRoute,
} from "./enterprise-keys.js";
import { registerRoute } from "./enterprise-register.js";
import { walletRoute } from "./enterprise-wallet.js";
import {
  createWebhookRoute,
  deleteWebhookByPathRoute,
  deleteWebhookRoute,
  listWebhooksRoute,
} from "./enterprise-webhooks.js";
import { healthRoute } from "./health.js";
import { SESSION_ROUTES } from "./session.js";
import { SESSION_OPERATOR_ROUTES } from "./session-operator.js";

/** Service routes without authentication. */
export const SYSTEM_ROUTES: readonly AnyRouteDefinition[] = [healthRoute];

/** `/api/enterprise` management routes (spec 4.3). */
export const MANAGEMENT_ROUTES: readonly AnyRouteDefinition[] = [
  registerRoute,
  walletRoute,
  listKeysRoute,
  createKeyRoute,
  revokeKeyRoute,
  revokeKeyByPathRoute,
  listWebhooksRoute,
  createWebhookRoute,
  deleteWebhookRoute,
  deleteWebhookByPathRoute,
];

/** `/api/console` routes: session sign-in/out and the operator console's own endpoints. */
export const CONSOLE_ROUTES: readonly AnyRouteDefinition[] = [
  ...SESSION_ROUTES,
  ...SESSION_OPERATOR_ROUTES,
];

/** Every route declared with `defineRoute`, for the OpenAPI generator. */
export const ALL_ROUTES: readonly AnyRouteDefinition[] = [
  ...SYSTEM_ROUTES,
  ...MANAGEMENT_ROUTES,
  ...CONSOLE_ROUTES,
];
