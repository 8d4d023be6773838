import type { Plan } from "../domain/org.js";

/** Request allowances of a plan, per organization. */
export interface PlanLimits {
  perMinute: number;
  perDay: number;
}

/** Throughput per plan (docs/api-decisions.md). Applied together with the per-key limit; the stricter wins. */
export const PLAN_LIMITS: Readonly<Record<Plan, PlanLimits>> = {
  free: { perMinute: 10, perDay: 5_000 },
  basic: { perMinute: 300, perDay: 50_000 },
  pro: { perMinute: 1_000, perDay: 500_000 },
  enterprise: { perMinute: 10_000, perDay: 10_000_000 },
};

/** Limits of a stored plan name; an unknown name gets the free plan's limits. */
export function planLimits(plan: string): PlanLimits {
  return (PLAN_LIMITS as Record<string, PlanLimits | undefined>)[plan] ?? PLAN_LIMITS.free;
}
