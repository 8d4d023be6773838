import express, { type NextFunction, type Request, type Response } from "express";
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from "../errors.js";

/** Whether the request carries a body at all (a POST/DELETE without one is allowed). */
function hasBody(req: Request): boolean {
  const length = req.get("content-length");
  if (length !== undefined) return length.trim() !== "0";
  return req.get("transfer-encoding") !== undefined;
}

/**
 * JSON body handling for the whole API:
 * - a request with a body must be `Content-Type: application/json` (any charset parameter is
 *   accepted; the parser still refuses non-UTF charsets), else 415;
 * - bodies over `limitBytes` are refused with 413 before being read in full;
 * - malformed JSON is 400 `Malformed JSON body`; top-level JSON must be an object or array
 *   (strict mode), so `"text"` or `42` is malformed too;
 * - a request without a body gets `req.body = {}` so validation reports the missing fields.
 */
export function jsonBody(limitBytes: number) {
  const parse = express.json({ limit: limitBytes, strict: true, type: () => true });
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!hasBody(req)) {
      req.body = {};
      next();
      return;
    }
    const type = req.get("content-type");
    if (type === undefined || !req.is("application/json")) {
      next(new UnsupportedMediaTypeError("Content-Type must be application/json"));
      return;
    }
    parse(req, res, (error?: unknown) => {
      if (error === undefined || error === null) {
        next();
        return;
      }
      next(mapParserError(error));
    });
  };
}

/** Turns body-parser's errors (tagged with `type`) into the relayer's error classes. */
function mapParserError(error: unknown): unknown {
  const type = (error as { type?: unknown }).type;
  switch (type) {
    case "entity.too.large":
      return new PayloadTooLargeError("Request body too large", { cause: error });
    case "entity.parse.failed":
      return new ValidationError("Malformed JSON body", { cause: error });
    case "charset.unsupported":
    case "encoding.unsupported":
      return new UnsupportedMediaTypeError("Unsupported body encoding", { cause: error });
    case "request.aborted":
    case "request.size.invalid":
    case "stream.encoding.set":
      return new ValidationError("Invalid request body", { cause: error });
    default: {
      // Other body-parser/zlib failures (bad gzip/br data, ...) are tagged with a 4xx status.
      const status = (error as { status?: unknown }).status;
      if (status === 413)
        return new PayloadTooLargeError("Request body too large", { cause: error });
      if (status === 415)
        return new UnsupportedMediaTypeError("Unsupported body encoding", { cause: error });
      if (typeof status === "number" && status >= 400 && status < 500) {
        return new ValidationError("Invalid request body", { cause: error });
      }
      return error;
    }
  }
}
