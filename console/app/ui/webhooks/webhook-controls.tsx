"use client";

import { useState } from "react";
import { api } from "../../lib/api";
import { WEBHOOK_EVENTS } from "../../lib/constants";
import type { ResponseBody, RotatedWebhookSecret, WebhookSummary } from "../../lib/types";
import { useAction } from "../../lib/use-action";
import { CheckboxGroup } from "../common/checkbox-group";
import { ConfirmButton } from "../common/confirm-button";
import { ResultNotice } from "../common/states";

const DAY_MS = 86_400_000;

/** `datetime-local` input value (local time, minutes) of an instant. */
function localInput(ms: number): string {
  const date = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 16);
}

/**
 * The controls of one webhook (docs/webhooks.md): edit its event filter, replay a time range,
 * rotate its signing secret (the new one goes to `onRotated`, shown once by the panel).
 */
export function WebhookControls({
  hook,
  onChanged,
  onRotated,
}: {
  hook: WebhookSummary;
  onChanged: () => void;
  onRotated: (rotated: RotatedWebhookSecret) => void;
}) {
  const path = `/api/enterprise/webhooks/${encodeURIComponent(hook.webhookId)}`;
  const action = useAction(onChanged);
  const [events, setEvents] = useState<string[]>(hook.events);
  const [from, setFrom] = useState(() => localInput(Date.now() - DAY_MS));
  // The input has minute precision: end at the next minute so the events of this one count.
  const [to, setTo] = useState(() => localInput(Date.now() + 60_000));
  const idPrefix = `webhook-${hook.webhookId}`;

  const saveEvents = () =>
    void action.run("Event filter saved.", () => api("PATCH", path, { events }));
  const replay = () =>
    void action.run("Replay queued.", async () => {
      const body = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
      const queued = await api<ResponseBody<"/api/enterprise/webhooks/{webhookId}/replay", "post">>(
        "POST",
        `${path}/replay`,
        body,
      );
      if (queued.queued === 0) throw new Error("No event of that range matches this webhook.");
    });
  const rotate = () =>
    action.run("Secret rotated: copy the new one above.", async () => {
      onRotated(await api<RotatedWebhookSecret>("POST", `${path}/rotate-secret`, {}));
    });

  return (
    <div className="webhook-controls stack" data-testid={`webhook-controls-${hook.webhookId}`}>
      <ResultNotice result={action.result} />
      <div className="control-row">
        <CheckboxGroup
          id={`${idPrefix}-events`}
          legend="Events this webhook receives"
          name={`${idPrefix}-events`}
          options={WEBHOOK_EVENTS}
          value={events}
          onChange={setEvents}
          error={events.length === 0 ? "Choose at least one event." : undefined}
        />
        <button
          type="button"
          className="button button-small"
          disabled={events.length === 0}
          onClick={saveEvents}
        >
          Save events
        </button>
      </div>
      <fieldset className="control-row">
        <legend>Replay the events of a time range (at most 31 days)</legend>
        <label>
          From{" "}
          <input
            type="datetime-local"
            value={from}
            onChange={(e) => setFrom(e.target.value)}
            aria-label="Replay from"
          />
        </label>
        <label>
          To{" "}
          <input
            type="datetime-local"
            value={to}
            onChange={(e) => setTo(e.target.value)}
            aria-label="Replay to"
          />
        </label>
        <button
          type="button"
          className="button button-small"
          disabled={!hook.enabled}
          onClick={replay}
        >
          Replay
        </button>
      </fieldset>
      <div className="control-row">
        <p className="muted">
          {hook.previousSecretExpiresAt === null
            ? "Rotating gives a new signing secret; the current one keeps signing for 24 hours."
            : `The previous secret still signs until ${new Date(hook.previousSecretExpiresAt).toLocaleString()}.`}
        </p>
        <ConfirmButton
          label="Rotate secret"
          confirmLabel="Yes, rotate"
          question="Rotate this webhook's signing secret?"
          onConfirm={rotate}
        />
      </div>
    </div>
  );
}
