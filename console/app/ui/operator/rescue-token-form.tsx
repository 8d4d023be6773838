"use client";

import { api } from "../../lib/api";
import type { ResponseBody } from "../../lib/types";
import { shortHex } from "../../lib/format";
import { rescueTokenSchema } from "../../lib/schemas";
import { useForm } from "../../lib/use-form";
import { FormCard } from "../common/form-card";
import { TextField } from "../common/text-field";

/**
 * Operator: returns a token the marketplace holds without a listing (sent there by a plain
 * transferFrom) to the address the operator names. The relayer refuses tokens of listings.
 */
export function RescueTokenForm() {
  const form = useForm(
    rescueTokenSchema,
    { tokenId: "", toAddress: "" },
    async (data) => {
      const done = await api<ResponseBody<"/api/enterprise/marketplace/rescue", "post">>(
        "POST",
        "/api/enterprise/marketplace/rescue",
        data,
      );
      return `Token #${done.tokenId} sent to ${shortHex(done.toAddress)} (tx ${shortHex(done.txHash)}).`;
    },
    { resetOnSuccess: ["tokenId"] },
  );

  return (
    <FormCard
      title="Rescue a stranded token"
      intro={
        <p className="muted">
          A token moved into the marketplace with a plain transferFrom has no listing and no seller
          to reclaim it. Send it to the address its owner names. Tokens of listings are refused.
        </p>
      }
      form={form}
      submit="Rescue token"
      busy="Sending (waiting for the chain)…"
    >
      <TextField
        id="rescue-token-id"
        label="Token id"
        inputMode="numeric"
        {...form.field("tokenId")}
      />
      <TextField id="rescue-to" label="Send to address" {...form.field("toAddress")} />
    </FormCard>
  );
}
