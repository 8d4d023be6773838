import type { TxRow } from "../../relayer/src/engine/tx-rows.js";

let made = 0;

/**
 * A `transactions` row for unit tests: a queued issuance of one wallet, with `fields` over it
 * (each row gets its own id unless `fields` names one).
 *
 * @example txRow({ state: "sent", nonce: 3 })
 */
export function txRow(fields: Partial<TxRow> = {}): TxRow {
  made++;
  return {
    id: `tx_${String(made).padStart(24, "0")}`,
    orgId: "org_1",
    walletId: "wal_1",
    parentId: null,
    itemIndex: null,
    kind: "issue-asset",
    mode: "async",
    requestHash: "",
    fromAddress: "0xaaaa",
    toAddress: "0xtoken",
    data: "0x01",
    value: "0",
    gasLimit: "100000",
    maxFeePerGas: null,
    maxPriorityFeePerGas: null,
    feeCap: null,
    nonce: null,
    state: "queued",
    attempts: [],
    receipt: null,
    context: {},
    result: null,
    error: null,
    errorKind: null,
    lastError: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    sentAt: null,
    minedAt: null,
    confirmedAt: null,
    failedAt: null,
    replacedAt: null,
    cancelledAt: null,
    cancelRequestedAt: null,
    stuckSince: null,
    stuckReason: null,
    speedUpAt: null,
    validUntil: null,
    expiredAt: null,
    reopenedAt: null,
    idempotencyKey: null,
    ...fields,
  };
}
