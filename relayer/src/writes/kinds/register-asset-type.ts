import { z } from "zod";
import { registryInterface } from "../../chain/contracts/bindings.js";
import { AUDIT_ACTIONS } from "../../domain/audit.js";
import { ValidationError } from "../../errors.js";
import { assetTypeNameField } from "../../shared/parse-input.js";
import { receiptFactsSchema } from "../../chain/contracts/receipt-events.js";
import { confirmedResult, defineWriteKind, writeResult, WRITE_OPTIONS } from "./write-kind.js";

/** Body of register-asset-type. */
export const registerTypeRequest = z.strictObject({
  ...WRITE_OPTIONS,
  typeName: assetTypeNameField,
});

/** Success body of register-asset-type. */
export const registerTypeResponse = z.object({
  success: z.literal(true),
  typeName: z.string(),
  txHash: z.string(),
});

/** What a registration's response needs: the type's name. */
export const registerTypeContext = z.object({ typeName: z.string() });

type RegisterTypeContext = z.output<typeof registerTypeContext>;

/** A confirmed registration's stored result. */
export const registerTypeResult = writeResult(registerTypeContext, receiptFactsSchema);

/**
 * `POST /api/v1/write/register-asset-type`: `registerType(name)` from the org's wallet (it holds
 * REGISTRAR_ROLE).
 */
export const registerAssetType = defineWriteKind({
  kind: "register-asset-type",
  path: "/api/v1/write/register-asset-type",
  summary: "Register a new asset type (the org's wallet holds REGISTRAR_ROLE)",
  scopes: ["admin:types"],
  request: registerTypeRequest,
  response: registerTypeResponse,
  context: registerTypeContext,
  docs: {
    operationId: "registerAssetType",
    errors: { 400: ["Missing required field: typeName", "Asset type already registered: Art"] },
  },
  async prepare(ctx, _wallet, input) {
    if (await ctx.assetTypes.isRegistered(input.typeName)) {
      throw new ValidationError(`Asset type already registered: ${input.typeName}`);
    }
    const context: RegisterTypeContext = { typeName: input.typeName };
    return [
      {
        to: ctx.contracts.assetTypeRegistry,
        data: registryInterface.encodeFunctionData("registerType", [input.typeName]),
        value: 0n,
        context,
      },
    ];
  },
  respond(row): z.output<typeof registerTypeResponse> {
    const { result: r, txHash } = confirmedResult(row, registerTypeResult);
    return { success: true, typeName: r.typeName, txHash };
  },
  audit: (input) => ({
    action: AUDIT_ACTIONS.assetTypeRegistered,
    target: `asset-type:${input.typeName}`,
    changes: { typeName: input.typeName },
  }),
});
