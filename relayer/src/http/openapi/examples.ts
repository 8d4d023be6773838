/** A JSON object (the OpenAPI document is plain JSON all the way down). */
export type JsonObject = { [key: string]: unknown };

const SELLER = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";
const BUYER = "0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B";
const TX_HASH = "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060";
const DOCUMENT_CID = "bafkreidgvpkjawlxz6sffxzwgooowe5yt7i6wsyg236mfoks77nywkptdq";
const IMAGE_CID = "bafkreie7ohywtosou76tasm7j63yigtzxe7d5zqus4zu3j6oltvgtibeom";

/**
 * Realistic example values by property name, for every request and response schema of the
 * OpenAPI document (and so the reference page at `/docs` and the Postman collection, which are
 * generated from it). One table so the same field always shows the same value; a property whose
 * schema allows only some values (an enum) keeps its example only when it is one of them.
 */
export const FIELD_EXAMPLES: Readonly<Record<string, unknown>> = {
  // People and policy
  email: "ana@harbour-estates.example",
  role: "admin",
  token: "p3Xv9kQm2Lr8Tz1Wc6Yb4Nd7Hf0Js5Ag2Ue8Io1Ks4M",
  totp: "492039",
  challengeId: "wac_5f2b9c1e7a3d4b6c8e0f1a2b",
  mode: "allowlist",
  address: BUYER,
  transfersPerDay: 20,
  kinds: ["transfer"],
  when: "always",
  approvers: 1,
  // Organizations and keys
  orgName: "Harbour Estates Ltd",
  orgId: "org_5f1c2e9a8b7d6c5b4a392817",
  walletMode: "custodial",
  plan: "pro",
  scopes: ["read", "write:issue", "write:marketplace"],
  label: "Back-office integration",
  keyId: "key_9a8b7c6d5e4f30211f2e3d4c",
  apiKey: "rwa_live_7d1e9c0b5a3f48e6b2c4d6f8a0b1c3d5e7f9a1b3c5d7e9f0a2b4c6d8e0f1a3b5",
  walletAddress: SELLER,
  // Assets
  assetType: "Real Estate",
  typeName: "Vintage Wine",
  name: "Harbour View Apartment 12B",
  description: "Two-bedroom apartment, 84 m², freehold, Lisbon waterfront",
  image: `ipfs://${IMAGE_CID}`,
  externalUrl: "https://assets.harbour-estates.example/harbour-view-12b",
  ipfsHash: DOCUMENT_CID,
  metadataCid: DOCUMENT_CID,
  stakedAmount: "0.1",
  stakedAmountWei: "100000000000000000",
  password: "correct horse battery staple",
  tokenId: "1",
  // Marketplace
  listingId: "1",
  priceInCOIN: "2.5",
  maxPriceInCOIN: "2.5",
  price: "2.5",
  pricePaid: "2.5",
  priceWei: "2500000000000000000",
  durationDays: 30,
  toAddress: BUYER,
  // Compliance (an operator's reason; a listing's `reason` is an enum and keeps its own)
  reason: "Court order 2026/117: title under dispute",
  // Chain
  txHash: TX_HASH,
  mintTxHash: TX_HASH,
  wallet: SELLER,
  owner: SELLER,
  minter: SELLER,
  seller: SELLER,
  buyer: BUYER,
  from: SELLER,
  to: BUYER,
  transactionId: "tx_3b9f0c1d2e4a5b6c7d8e9f01",
  // Webhooks
  url: "https://hooks.harbour-estates.example/rwa",
  events: ["asset.issued", "asset.sold"],
  secret: "whsec_b64f3c1e9a0d4b7f8c2e6a1d",
  webhookId: "wh_0d1c2b3a4f5e6d7c8b9a0f1e",
};

/** Query and path parameter examples (by name) where the field table has none or another. */
const PARAMETER_EXAMPLES: Readonly<Record<string, unknown>> = {
  id: "1",
  limit: "20",
  owner: SELLER,
  seller: SELLER,
  status: "active",
  cid: DOCUMENT_CID,
  deliveryId: "dlv_8e7d6c5b4a3f2e1d0c9b8a7f",
  // The wallet history's window (the field table's `from`/`to` are addresses).
  from: "2026-11-01T00:00:00Z",
  to: "2026-11-25T00:00:00Z",
};

/** Whether `value` is allowed by `schema`'s enum or const (an array's items too). */
function fits(schema: JsonObject, value: unknown): boolean {
  if (Array.isArray(value) && typeof schema.items === "object" && schema.items !== null)
    return value.every((item) => fits(schema.items as JsonObject, item));
  if (Array.isArray(schema.enum)) return schema.enum.includes(value);
  if ("const" in schema) return schema.const === value;
  // An address is no example of a 40-character time (the replay's `from`/`to`).
  if (typeof value === "string" && typeof schema.maxLength === "number")
    return value.length <= schema.maxLength;
  return true;
}

/** An example of `schema` built from its properties' examples (undefined when it has none). */
function exampleOf(schema: JsonObject, depth = 0): unknown {
  if (depth > 4) return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.type === "array" && schema.items !== undefined) {
    const item = exampleOf(schema.items as JsonObject, depth + 1);
    return item === undefined ? undefined : [item];
  }
  const properties = schema.properties as Record<string, JsonObject> | undefined;
  if (properties === undefined) return undefined;
  const out: JsonObject = {};
  for (const [name, property] of Object.entries(properties)) {
    const value = exampleOf(property, depth + 1);
    if (value !== undefined) out[name] = value;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** Adds `examples` to every property of `schema` (recursively) that the table knows. */
function annotate(schema: unknown): void {
  if (schema === null || typeof schema !== "object") return;
  if (Array.isArray(schema)) {
    schema.forEach(annotate);
    return;
  }
  const object = schema as JsonObject;
  const properties = object.properties as Record<string, JsonObject> | undefined;
  if (properties !== undefined) {
    for (const [name, property] of Object.entries(properties)) {
      const value = FIELD_EXAMPLES[name];
      if (value !== undefined && property.examples === undefined && fits(property, value)) {
        property.examples = [value];
      }
    }
  }
  for (const value of Object.values(object)) annotate(value);
}

/**
 * Gives every schema property, parameter and request body of `doc` its realistic example (in
 * place): `examples` on properties, `example` on parameters and on each JSON request body, so
 * the reference page's "Try it out" and the Postman requests start from a body that works.
 */
export function addExamples(doc: {
  paths: Record<string, Record<string, JsonObject>>;
  components: { schemas: Record<string, JsonObject> };
}): void {
  annotate(doc.components.schemas);
  for (const item of Object.values(doc.paths)) {
    for (const operation of Object.values(item)) {
      annotate(operation.responses);
      for (const parameter of (operation.parameters ?? []) as JsonObject[]) {
        const name = String(parameter.name);
        const value = PARAMETER_EXAMPLES[name] ?? FIELD_EXAMPLES[name];
        const schema = (parameter.schema ?? {}) as JsonObject;
        if (value !== undefined && parameter.example === undefined && fits(schema, value)) {
          parameter.example = value;
        }
      }
      const media = (operation.requestBody as JsonObject | undefined)?.content as
        | Record<string, JsonObject>
        | undefined;
      const json = media?.["application/json"];
      if (json?.schema !== undefined) {
        annotate(json.schema);
        const example = exampleOf(json.schema as JsonObject);
        if (example !== undefined) json.example = example;
      }
    }
  }
}
