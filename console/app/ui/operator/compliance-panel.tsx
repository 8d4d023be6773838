"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { shortHex } from "../../lib/format";
import type { ResponseBody } from "../../lib/types";
import { useAction, type ActionResult } from "../../lib/use-action";
import { useResource } from "../../lib/use-resource";
import { hexColumn, timeColumn } from "../common/columns";
import { ConfirmButton } from "../common/confirm-button";
import { DataTable, type Column } from "../common/data-table";
import { Panel } from "../common/panel";
import { ResultNotice } from "../common/states";
import { TextField } from "../common/text-field";

/** An allowlisted address (`GET /api/enterprise/allowlist`). */
type AllowlistEntry = ResponseBody<"/api/enterprise/allowlist", "get">["addresses"][number];

const TOKEN_ID = /^\d{1,78}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** What freeze, unfreeze and forced transfer answer under four-eyes (docs/people.md). */
type WaitingRequest = ResponseBody<"/api/enterprise/operator-requests/{requestId}", "get">;

/** The inputs of the controls; `check` knows what each must hold. */
type FieldName = "tokenId" | "toAddress" | "reason" | "typeName";

/** The field errors of the inputs a control needs, or none. */
function check(fields: Partial<Record<FieldName, string>>): string | undefined {
  if (fields.tokenId !== undefined && !TOKEN_ID.test(fields.tokenId.trim()))
    return "Enter a token id (digits only).";
  if (fields.toAddress !== undefined && !ADDRESS.test(fields.toAddress.trim()))
    return "Enter a 0x address (40 hex characters).";
  if (fields.typeName !== undefined && fields.typeName.trim() === "")
    return "Enter an asset type name.";
  if (fields.reason !== undefined && fields.reason.trim() === "")
    return "Give a reason: it is written on chain and sent to the organizations.";
  if (fields.reason !== undefined && fields.reason.length > 500)
    return "Keep the reason under 500 characters.";
  return undefined;
}

/** One button of a control: what it asks, sends and then says, from the trimmed inputs. */
interface ControlAction<F extends FieldName> {
  label: string;
  confirmLabel: string;
  question: (values: Record<F, string>) => string;
  /**
   * Sends the request; every control's answer carries the transaction that made the state, or
   * (freeze, unfreeze, forced transfer under four-eyes) the operator request left waiting.
   */
  send: (values: Record<F, string>) => Promise<{ txHash: string | null } | WaitingRequest>;
  /** What the screen says once done; `tx` is ` (tx 0x12…cdef)`, or empty without a hash. */
  done: (values: Record<F, string>, tx: string) => string;
}

/** A compliance control: its inputs (checked by `check` before anything is sent) and buttons. */
interface Control<F extends FieldName> {
  fields: ReadonlyArray<{ name: F; id: string; label: string; numeric?: boolean }>;
  actions: ReadonlyArray<ControlAction<F>>;
}

/** A control on a card of its own, with what it does. */
interface ControlCard<F extends FieldName> extends Control<F> {
  title: string;
  intro: React.ReactNode;
}

type FreezePath =
  | "/api/enterprise/assets/{tokenId}/freeze"
  | "/api/enterprise/assets/{tokenId}/unfreeze";
type PausePath = "/api/enterprise/marketplace/pause" | "/api/enterprise/marketplace/resume";

const FREEZE: ControlCard<"tokenId" | "reason"> = {
  title: "Freeze an asset",
  intro: (
    <>
      A frozen asset cannot be transferred, listed, bought or redeemed; a listed one can only go
      back to its seller. Its organization is told, with your reason.
    </>
  ),
  fields: [
    { name: "tokenId", id: "freeze-token-id", label: "Token id", numeric: true },
    { name: "reason", id: "freeze-reason", label: "Reason" },
  ],
  actions: (["freeze", "unfreeze"] as const).map((kind) => ({
    label: kind === "freeze" ? "Freeze" : "Unfreeze",
    confirmLabel: kind === "freeze" ? "Yes, freeze" : "Yes, unfreeze",
    question: ({ tokenId }) => `${kind === "freeze" ? "Freeze" : "Unfreeze"} token #${tokenId}?`,
    send: ({ tokenId, reason }) =>
      api<ResponseBody<FreezePath, "post">>(
        "POST",
        kind === "freeze"
          ? `/api/enterprise/assets/${tokenId}/freeze`
          : `/api/enterprise/assets/${tokenId}/unfreeze`,
        { reason },
      ),
    done: ({ tokenId }, tx) =>
      `Token #${tokenId} ${kind === "freeze" ? "frozen" : "unfrozen"}${tx}.`,
  })),
};

const FORCED_TRANSFER: ControlCard<"tokenId" | "toAddress" | "reason"> = {
  title: "Forced transfer",
  intro: (
    <>
      Moves an asset to a new holder whatever its state (a court order, a lost key). A listed
      asset&apos;s listing ends cancelled; a frozen asset arrives unfrozen.
    </>
  ),
  fields: [
    { name: "tokenId", id: "force-token-id", label: "Token id", numeric: true },
    { name: "toAddress", id: "force-to", label: "Send to address" },
    { name: "reason", id: "force-reason", label: "Reason" },
  ],
  actions: [
    {
      label: "Force transfer",
      confirmLabel: "Yes, move it",
      question: ({ tokenId, toAddress }) => `Move token #${tokenId} to ${shortHex(toAddress)}?`,
      send: ({ tokenId, toAddress, reason }) =>
        api<ResponseBody<"/api/enterprise/assets/{tokenId}/forced-transfer", "post">>(
          "POST",
          `/api/enterprise/assets/${tokenId}/forced-transfer`,
          { toAddress, reason },
        ),
      done: ({ tokenId }, tx) => `Token #${tokenId} moved${tx}.`,
    },
  ],
};

const MARKET_PAUSE: ControlCard<"reason"> = {
  title: "Market pause",
  intro: (
    <>
      Halts every mint, transfer, listing, purchase and redemption. Sellers can still take listed
      assets back; you can still freeze and force transfers. Every organization is told.
    </>
  ),
  fields: [{ name: "reason", id: "market-reason", label: "Reason" }],
  actions: (["pause", "resume"] as const).map((kind) => ({
    label: kind === "pause" ? "Pause the market" : "Resume the market",
    confirmLabel: kind === "pause" ? "Yes, pause" : "Yes, resume",
    question: () => (kind === "pause" ? "Halt every transfer?" : "Resume transfers?"),
    send: ({ reason }) =>
      api<ResponseBody<PausePath, "post">>(
        "POST",
        kind === "pause"
          ? "/api/enterprise/marketplace/pause"
          : "/api/enterprise/marketplace/resume",
        { reason },
      ),
    done: (_values, tx) => `Market ${kind === "pause" ? "paused" : "resumed"}${tx}.`,
  })),
};

const RESTRICTED_TYPES: ControlCard<"typeName"> = {
  title: "Restricted asset types",
  intro: (
    <>
      Tokens of a restricted type can only be minted to, or moved to, allowlisted addresses. Every
      organization&apos;s wallet is allowlisted when it registers.
    </>
  ),
  fields: [{ name: "typeName", id: "restrict-type", label: "Asset type name" }],
  actions: [true, false].map((restricted) => ({
    label: restricted ? "Restrict" : "Lift restriction",
    confirmLabel: restricted ? "Yes, restrict" : "Yes, lift",
    question: ({ typeName }) =>
      `${restricted ? "Restrict" : "Lift the restriction on"} “${typeName}”?`,
    send: ({ typeName }) =>
      api<ResponseBody<"/api/enterprise/asset-types/{name}", "patch">>(
        "PATCH",
        `/api/enterprise/asset-types/${encodeURIComponent(typeName)}`,
        { restricted },
      ),
    done: ({ typeName }, tx) =>
      `“${typeName}” is ${restricted ? "restricted" : "unrestricted"}${tx}.`,
  })),
};

const ALLOWLIST_ADD: Control<"toAddress"> = {
  fields: [{ name: "toAddress", id: "allow-address", label: "Address" }],
  actions: [
    {
      label: "Add to allowlist",
      confirmLabel: "Yes, add",
      question: ({ toAddress }) => `Allow ${shortHex(toAddress)} to hold restricted types?`,
      send: ({ toAddress }) =>
        api<ResponseBody<"/api/enterprise/allowlist", "post">>(
          "POST",
          "/api/enterprise/allowlist",
          { address: toAddress },
        ),
      done: (_values, tx) => `Added${tx}. It shows in the list once indexed.`,
    },
  ],
};

/**
 * Operator: the compliance controls (README "Compliance controls"). Every control asks for a
 * reason and a confirmation (`ConfirmButton`) before it sends anything; the relayer answers once
 * the operator account's transaction is mined, or (freeze, unfreeze, forced transfer) with the
 * request that waits for a second operator person on the Requests screen.
 */
export function CompliancePanel() {
  const allowlist = useResource("allowlist", async () => {
    const { addresses } = await api<ResponseBody<"/api/enterprise/allowlist", "get">>(
      "GET",
      "/api/enterprise/allowlist",
    );
    return addresses;
  });
  // The list comes from the indexer, which follows the chain within a few seconds.
  const reloadSoon = () => setTimeout(allowlist.reload, 1500);
  const remove = useAction(reloadSoon);

  const columns: ReadonlyArray<Column<AllowlistEntry>> = [
    hexColumn("address", "Address", (entry) => entry.address),
    timeColumn("added", "Added", (entry) => entry.addedAt),
    {
      id: "remove",
      header: "Remove",
      hiddenHeader: true,
      cell: (entry) => (
        <ConfirmButton
          label="Remove"
          confirmLabel="Yes, remove"
          question={`Remove ${shortHex(entry.address)}? It keeps what it holds but can no longer receive restricted types.`}
          onConfirm={() =>
            remove.run(`Removed ${shortHex(entry.address)}.`, () =>
              api("DELETE", "/api/enterprise/allowlist", { address: entry.address }),
            )
          }
        />
      ),
    },
  ];

  return (
    <div className="stack">
      <ControlPanel control={FREEZE} />
      <ControlPanel control={FORCED_TRANSFER} />
      <ControlPanel control={MARKET_PAUSE} />
      <ControlPanel control={RESTRICTED_TYPES} />
      <Panel title="Allowlist" refresh={allowlist} notice={remove.result}>
        <ControlForm control={ALLOWLIST_ADD} onDone={reloadSoon} />
        <DataTable
          caption="Allowlisted addresses"
          resource={allowlist}
          rowKey={(entry) => entry.address}
          rowTestId="allowlist-row"
          empty={{ title: "No allowlisted address indexed yet" }}
          columns={columns}
        />
      </Panel>
    </div>
  );
}

/** A control on a card of its own: title, what it does, then its form. */
function ControlPanel<F extends FieldName>({ control }: { control: ControlCard<F> }) {
  return (
    <Panel title={control.title}>
      <p className="muted">{control.intro}</p>
      <ControlForm control={control} />
    </Panel>
  );
}

/**
 * A control's inputs and buttons, and what its last request said. A button refuses at once with
 * the field error `check` finds, else sends, then says what `done` makes of the answer (and
 * calls `onDone`), or why it failed.
 */
function ControlForm<F extends FieldName>({
  control,
  onDone,
}: {
  control: Control<F>;
  onDone?: () => void;
}) {
  const [values, setValues] = useState(
    () => Object.fromEntries(control.fields.map((field) => [field.name, ""])) as Record<F, string>,
  );
  const [result, setResult] = useState<ActionResult>(undefined);
  const trimmed = Object.fromEntries(
    control.fields.map((field) => [field.name, values[field.name].trim()]),
  ) as Record<F, string>;

  const run = async (action: ControlAction<F>) => {
    setResult(undefined);
    const invalid = check(values);
    if (invalid !== undefined) {
      setResult({ kind: "error", text: invalid });
      return;
    }
    try {
      const answer = await action.send(trimmed);
      if ("requestId" in answer) {
        setResult({
          kind: "ok",
          text: `Request ${answer.requestId} waits for a second operator person (Requests).`,
        });
        return;
      }
      setResult({ kind: "ok", text: action.done(trimmed, txText(answer.txHash)) });
      onDone?.();
    } catch (error) {
      setResult({ kind: "error", text: messageOf(error) });
    }
  };

  const buttons = control.actions.map((action) => (
    <ConfirmButton
      key={action.label}
      label={action.label}
      confirmLabel={action.confirmLabel}
      question={action.question(trimmed)}
      onConfirm={() => run(action)}
    />
  ));
  return (
    <div className="form">
      {control.fields.map((field) => (
        <TextField
          key={field.id}
          id={field.id}
          label={field.label}
          inputMode={field.numeric === true ? "numeric" : undefined}
          value={values[field.name]}
          onChange={(value) => setValues((current) => ({ ...current, [field.name]: value }))}
          error={undefined}
        />
      ))}
      {buttons.length > 1 ? <div className="actions">{buttons}</div> : buttons}
      <ResultNotice result={result} />
    </div>
  );
}

function txText(txHash: string | null): string {
  return txHash === null ? "" : ` (tx ${shortHex(txHash)})`;
}
