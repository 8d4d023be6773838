"use client";

import { api } from "../../lib/api";
import { walletAlertsSchema } from "../../lib/schemas";
import type { WalletAlerts } from "../../lib/types";
import { useForm } from "../../lib/use-form";
import { useResource } from "../../lib/use-resource";
import { FormCard } from "../common/form-card";
import { TextField } from "../common/text-field";

const STATE_TEXT: Record<WalletAlerts["state"], string> = {
  ok: "The balance is at or above the threshold.",
  low: "The balance is below the threshold.",
  unknown: "Waiting for the next block to read the balance.",
};

/**
 * The low-balance threshold (`PUT /api/enterprise/wallet/alerts`, needs the `webhooks` scope):
 * below it the console shows a banner and webhooks subscribed to `wallet.low_balance` get one
 * event; `wallet.funded` follows once the balance is back.
 */
export function AlertThresholdForm() {
  const alerts = useResource("wallet-alerts-form", () =>
    api<WalletAlerts>("GET", "/api/enterprise/wallet/alerts"),
  );
  const form = useForm(walletAlertsSchema, { lowBalance: "" }, async (data) => {
    const saved = await api<WalletAlerts>("PUT", "/api/enterprise/wallet/alerts", data);
    alerts.reload();
    return `Alert threshold set to ${saved.lowBalance} COIN.`;
  });
  const current = alerts.data;
  return (
    <FormCard
      title="Low-balance alert"
      intro={
        <p className="muted" data-testid="alert-threshold">
          {current === undefined
            ? "Reading the current threshold…"
            : `Threshold: ${current.lowBalance} COIN${current.isDefault ? " (default: 10 issuances)" : ""}. ${STATE_TEXT[current.state]}`}
        </p>
      }
      form={form}
      submit="Save threshold"
      busy="Saving…"
    >
      <TextField
        id="low-balance"
        label="Alert below (COIN)"
        inputMode="decimal"
        {...form.field("lowBalance")}
      />
    </FormCard>
  );
}
