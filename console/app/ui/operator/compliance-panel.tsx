"use client";

import { useState } from "react";
import { api, messageOf } from "../../lib/api";
import { shortHex } from "../../lib/format";
import { useAction, type ActionResult } from "../../lib/use-action";
import { useResource } from "../../lib/use-resource";
import { hexColumn, timeColumn } from "../common/columns";
import { ConfirmButton } from "../common/confirm-button";
import { DataTable, type Column } from "../common/data-table";
import { Panel } from "../common/panel";
import { ResultNotice } from "../common/states";
import { TextField } from "../common/text-field";

/** An allowlisted address (`GET /api/enterprise/allowlist`). */
interface AllowlistEntry {
  address: string;
  txHash: string;
  addedAt: string;
}

/** What every control's answer carries: the transaction that made the state. */
interface Answer {
  txHash: string | null;
}

const TOKEN_ID = /^\d{1,78}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The field errors of the inputs a control needs, or none. */
function check(fields: {
  tokenId?: string;
  toAddress?: string;
  reason?: string;
  typeName?: string;
}): string | undefined {
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

/**
 * Operator: the compliance controls (README "Compliance controls"). Every control asks for a
 * reason and a confirmation (`ConfirmButton`) before it sends anything; the relayer answers once
 * the operator account's transaction is mined.
 */
export function CompliancePanel() {
  const allowlist = useResource("allowlist", async () => {
    const { addresses } = await api<{ addresses: AllowlistEntry[] }>(
      "GET",
      "/api/enterprise/allowlist",
    );
    return addresses;
  });
  const freeze = useControl();
  const force = useControl();
  const market = useControl();
  const types = useControl();
  // The list comes from the indexer, which follows the chain within a few seconds.
  const reloadSoon = () => setTimeout(allowlist.reload, 1500);
  const allow = useControl(reloadSoon);
  const remove = useAction(reloadSoon);

  const [tokenId, setTokenId] = useState("");
  const [freezeReason, setFreezeReason] = useState("");
  const [forceTokenId, setForceTokenId] = useState("");
  const [forceTo, setForceTo] = useState("");
  const [forceReason, setForceReason] = useState("");
  const [marketReason, setMarketReason] = useState("");
  const [typeName, setTypeName] = useState("");
  const [allowAddress, setAllowAddress] = useState("");

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
      <Panel title="Freeze an asset">
        <p className="muted">
          A frozen asset cannot be transferred, listed, bought or redeemed; a listed one can only go
          back to its seller. Its organization is told, with your reason.
        </p>
        <div className="form">
          <TextField
            id="freeze-token-id"
            label="Token id"
            inputMode="numeric"
            value={tokenId}
            onChange={setTokenId}
            error={undefined}
          />
          <TextField
            id="freeze-reason"
            label="Reason"
            value={freezeReason}
            onChange={setFreezeReason}
            error={undefined}
          />
          <div className="actions">
            {(["freeze", "unfreeze"] as const).map((kind) => (
              <ConfirmButton
                key={kind}
                label={kind === "freeze" ? "Freeze" : "Unfreeze"}
                confirmLabel={kind === "freeze" ? "Yes, freeze" : "Yes, unfreeze"}
                question={`${kind === "freeze" ? "Freeze" : "Unfreeze"} token #${tokenId.trim()}?`}
                onConfirm={() =>
                  freeze.run(
                    check({ tokenId, reason: freezeReason }),
                    (body) =>
                      `Token #${tokenId.trim()} ${kind === "freeze" ? "frozen" : "unfrozen"}${txText(body.txHash)}.`,
                    () =>
                      api<Answer>(
                        "POST",
                        kind === "freeze"
                          ? `/api/enterprise/assets/${tokenId.trim()}/freeze`
                          : `/api/enterprise/assets/${tokenId.trim()}/unfreeze`,
                        { reason: freezeReason.trim() },
                      ),
                  )
                }
              />
            ))}
          </div>
          <DoneNotice result={freeze.result} />
        </div>
      </Panel>

      <Panel title="Forced transfer">
        <p className="muted">
          Moves an asset to a new holder whatever its state (a court order, a lost key). A listed
          asset&apos;s listing ends cancelled; a frozen asset arrives unfrozen.
        </p>
        <div className="form">
          <TextField
            id="force-token-id"
            label="Token id"
            inputMode="numeric"
            value={forceTokenId}
            onChange={setForceTokenId}
            error={undefined}
          />
          <TextField
            id="force-to"
            label="Send to address"
            value={forceTo}
            onChange={setForceTo}
            error={undefined}
          />
          <TextField
            id="force-reason"
            label="Reason"
            value={forceReason}
            onChange={setForceReason}
            error={undefined}
          />
          <ConfirmButton
            label="Force transfer"
            confirmLabel="Yes, move it"
            question={`Move token #${forceTokenId.trim()} to ${shortHex(forceTo.trim())}?`}
            onConfirm={() =>
              force.run(
                check({ tokenId: forceTokenId, toAddress: forceTo, reason: forceReason }),
                (body) => `Token #${forceTokenId.trim()} moved${txText(body.txHash)}.`,
                () =>
                  api<Answer>(
                    "POST",
                    `/api/enterprise/assets/${forceTokenId.trim()}/forced-transfer`,
                    {
                      toAddress: forceTo.trim(),
                      reason: forceReason.trim(),
                    },
                  ),
              )
            }
          />
          <DoneNotice result={force.result} />
        </div>
      </Panel>

      <Panel title="Market pause">
        <p className="muted">
          Halts every mint, transfer, listing, purchase and redemption. Sellers can still take
          listed assets back; you can still freeze and force transfers. Every organization is told.
        </p>
        <div className="form">
          <TextField
            id="market-reason"
            label="Reason"
            value={marketReason}
            onChange={setMarketReason}
            error={undefined}
          />
          <div className="actions">
            {(["pause", "resume"] as const).map((kind) => (
              <ConfirmButton
                key={kind}
                label={kind === "pause" ? "Pause the market" : "Resume the market"}
                confirmLabel={kind === "pause" ? "Yes, pause" : "Yes, resume"}
                question={kind === "pause" ? "Halt every transfer?" : "Resume transfers?"}
                onConfirm={() =>
                  market.run(
                    check({ reason: marketReason }),
                    (body) =>
                      `Market ${kind === "pause" ? "paused" : "resumed"}${txText(body.txHash)}.`,
                    () =>
                      api<Answer>(
                        "POST",
                        kind === "pause"
                          ? "/api/enterprise/marketplace/pause"
                          : "/api/enterprise/marketplace/resume",
                        { reason: marketReason.trim() },
                      ),
                  )
                }
              />
            ))}
          </div>
          <DoneNotice result={market.result} />
        </div>
      </Panel>

      <Panel title="Restricted asset types">
        <p className="muted">
          Tokens of a restricted type can only be minted to, or moved to, allowlisted addresses.
          Every organization&apos;s wallet is allowlisted when it registers.
        </p>
        <div className="form">
          <TextField
            id="restrict-type"
            label="Asset type name"
            value={typeName}
            onChange={setTypeName}
            error={undefined}
          />
          <div className="actions">
            {[true, false].map((restricted) => (
              <ConfirmButton
                key={String(restricted)}
                label={restricted ? "Restrict" : "Lift restriction"}
                confirmLabel={restricted ? "Yes, restrict" : "Yes, lift"}
                question={`${restricted ? "Restrict" : "Lift the restriction on"} “${typeName.trim()}”?`}
                onConfirm={() =>
                  types.run(
                    check({ typeName }),
                    (body) =>
                      `“${typeName.trim()}” is ${restricted ? "restricted" : "unrestricted"}${txText(body.txHash)}.`,
                    () =>
                      api<Answer>(
                        "PATCH",
                        `/api/enterprise/asset-types/${encodeURIComponent(typeName.trim())}`,
                        { restricted },
                      ),
                  )
                }
              />
            ))}
          </div>
          <DoneNotice result={types.result} />
        </div>
      </Panel>

      <Panel title="Allowlist" refresh={allowlist} notice={remove.result}>
        <div className="form">
          <TextField
            id="allow-address"
            label="Address"
            value={allowAddress}
            onChange={setAllowAddress}
            error={undefined}
          />
          <ConfirmButton
            label="Add to allowlist"
            confirmLabel="Yes, add"
            question={`Allow ${shortHex(allowAddress.trim())} to hold restricted types?`}
            onConfirm={() =>
              allow.run(
                check({ toAddress: allowAddress }),
                (body) => `Added${txText(body.txHash)}. It shows in the list once indexed.`,
                () =>
                  api<Answer>("POST", "/api/enterprise/allowlist", {
                    address: allowAddress.trim(),
                  }),
              )
            }
          />
        </div>
        <DoneNotice result={allow.result} />
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

function txText(txHash: string | null): string {
  return txHash === null ? "" : ` (tx ${shortHex(txHash)})`;
}

/**
 * One control's request: `run` refuses at once with `invalid` (a field error), else sends, then
 * says what `doneText` makes of the answer (and calls `onDone`), or why it failed.
 */
function useControl(onDone?: () => void) {
  const [result, setResult] = useState<ActionResult>(undefined);
  const run = async <T,>(
    invalid: string | undefined,
    doneText: (body: T) => string,
    send: () => Promise<T>,
  ) => {
    setResult(undefined);
    if (invalid !== undefined) {
      setResult({ kind: "error", text: invalid });
      return;
    }
    try {
      const body = await send();
      setResult({ kind: "ok", text: doneText(body) });
      onDone?.();
    } catch (error) {
      setResult({ kind: "error", text: messageOf(error) });
    }
  };
  return { result, run };
}

/** What the last run of a control said. */
function DoneNotice({ result }: { result: ActionResult }) {
  return <ResultNotice result={result} />;
}
