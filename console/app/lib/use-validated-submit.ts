"use client";

import { useState } from "react";
import type { z } from "zod";
import { messageOf } from "./api";
import { fieldErrors } from "./schemas";

/** State and submit function of a console form (see `useValidatedSubmit`). */
export interface ValidatedSubmit {
  /** Field name → message, from the last validation. */
  errors: Record<string, string>;
  /** Why the last request failed (shown under the form). */
  failure: string | undefined;
  /** A request is running (the submit button is disabled meanwhile). */
  busy: boolean;
  /** Validates `input`; when valid, runs `send` with the parsed data. */
  submit: (input: unknown) => Promise<void>;
}

/**
 * The submit flow every console form shares: validate the fields with `schema` (field errors,
 * nothing sent, when they are wrong), then run `send` with the parsed data while `busy`; an error
 * it throws becomes `failure`, worded by `describeError`.
 *
 * @example
 * const form = useValidatedSubmit(createKeySchema, async (data) => onCreated(await api(...)));
 * <form onSubmit={(e) => { e.preventDefault(); void form.submit({ label, scopes }); }}>
 */
export function useValidatedSubmit<T>(
  schema: z.ZodType<T>,
  send: (data: T) => Promise<void>,
  describeError: (error: unknown) => string = messageOf,
): ValidatedSubmit {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (input: unknown) => {
    setFailure(undefined);
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await send(parsed.data);
    } catch (error) {
      setFailure(describeError(error));
    } finally {
      setBusy(false);
    }
  };

  return { errors, failure, busy, submit };
}
