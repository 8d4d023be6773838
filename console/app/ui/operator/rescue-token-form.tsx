"use client";

import { useState } from "react";
import { api } from "../../lib/api";
import { shortHex } from "../../lib/format";
import { rescueTokenSchema } from "../../lib/schemas";
import { useValidatedSubmit } from "../../lib/use-validated-submit";
import { FieldError, Notice } from "../common/states";

/**
 * Operator: returns a token the marketplace holds without a listing (sent there by a plain
 * transferFrom) to the address the operator names. The relayer refuses tokens of listings.
 */
export function RescueTokenForm() {
  const [tokenId, setTokenId] = useState("");
  const [toAddress, setToAddress] = useState("");
  const [done, setDone] = useState<string | undefined>();
  const { errors, failure, busy, submit } = useValidatedSubmit(rescueTokenSchema, async (data) => {
    const result = await api<{ tokenId: string; toAddress: string; txHash: string }>(
      "POST",
      "/api/enterprise/marketplace/rescue",
      data,
    );
    setDone(
      `Token #${result.tokenId} sent to ${shortHex(result.toAddress)} (tx ${shortHex(result.txHash)}).`,
    );
    setTokenId("");
  });

  return (
    <form
      className="card form"
      onSubmit={(event) => {
        event.preventDefault();
        setDone(undefined);
        void submit({ tokenId, toAddress });
      }}
      noValidate
    >
      <h2>Rescue a stranded token</h2>
      <p className="muted">
        A token moved into the marketplace with a plain transferFrom has no listing and no seller to
        reclaim it. Send it to the address its owner names. Tokens of listings are refused.
      </p>
      <label htmlFor="rescue-token-id">Token id</label>
      <input
        id="rescue-token-id"
        inputMode="numeric"
        value={tokenId}
        onChange={(event) => setTokenId(event.target.value)}
        aria-invalid={errors.tokenId !== undefined}
        aria-describedby="rescue-token-id-error"
      />
      <FieldError id="rescue-token-id-error" message={errors.tokenId} />
      <label htmlFor="rescue-to">Send to address</label>
      <input
        id="rescue-to"
        value={toAddress}
        onChange={(event) => setToAddress(event.target.value)}
        aria-invalid={errors.toAddress !== undefined}
        aria-describedby="rescue-to-error"
      />
      <FieldError id="rescue-to-error" message={errors.toAddress} />
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? "Sending (waiting for the chain)…" : "Rescue token"}
      </button>
      {done !== undefined && <Notice kind="ok">{done}</Notice>}
      {failure !== undefined && <Notice kind="error">{failure}</Notice>}
    </form>
  );
}
