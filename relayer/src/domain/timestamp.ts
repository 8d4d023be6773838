import { z } from "zod";

/** An ISO 8601 timestamp string, as every time in the API is written. */
export const timestamp = z.string().describe("ISO 8601 timestamp");
