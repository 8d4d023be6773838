import { z } from "zod";

/**
 * A 0x address as the API writes it (the relayer answers with checksummed addresses). Requests
 * are checked more strictly, checksum included, by the routes (`http/routes/schemas.ts`).
 */
export const address = z
  .string()
  .refine((value) => /^0x[0-9a-fA-F]{40}$/.test(value), "not a 0x address");
