"use client";

import { useState } from "react";
import type { z } from "zod";
import { messageOf } from "./api";
import { fieldErrors } from "./schemas";
import { useFields, type FieldValues, type Fields } from "./use-fields";

/** State and actions of a console form (see `useForm`). */
export interface Form<V extends FieldValues> extends Fields<V> {
  /** Field name → message, from the last validation. */
  errors: Record<string, string>;
  /** Why the last request failed (shown under the form). */
  failure: string | undefined;
  /** What the last request did, when `send` said it in words (shown under the form). */
  success: string | undefined;
  /** A request is running (the submit button is disabled meanwhile). */
  busy: boolean;
  /** Validates `values` (by default the form's own); when valid, runs `send` with the parsed data. */
  submit: (values?: V) => Promise<void>;
}

/**
 * The state and submit flow every console form shares: the fields' values (`useFields`), then
 * on submit their validation with `schema` (field errors, nothing sent, when they are wrong) and
 * `send` with the parsed data while `busy`. The sentence `send` returns, if any, becomes
 * `success` and the fields named in `resetOnSuccess` go back to their initial values; an error
 * it throws becomes `failure`, worded by `describeError`. Both are cleared on the next submit.
 *
 * @example
 * const form = useForm(assetTypeSchema, { typeName: "" }, send, { resetOnSuccess: ["typeName"] });
 * <FormCard title="Register an asset type" form={form} submit="Register type" busy="Registering…">
 *   <TextField id="type-name" label="Type name" {...form.field("typeName")} />
 * </FormCard>
 */
export function useForm<V extends FieldValues, T>(
  schema: z.ZodType<T>,
  initial: V,
  send: (data: T) => Promise<string | void> | string | void,
  {
    resetOnSuccess = [],
    describeError = messageOf,
  }: {
    resetOnSuccess?: ReadonlyArray<keyof V>;
    describeError?: (error: unknown) => string;
  } = {},
): Form<V> {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const { values, set, field } = useFields(initial, errors);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [success, setSuccess] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (input: V = values) => {
    setFailure(undefined);
    setSuccess(undefined);
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const done = await send(parsed.data);
      for (const name of resetOnSuccess) set(name, initial[name]);
      if (typeof done === "string") setSuccess(done);
    } catch (error) {
      setFailure(describeError(error));
    } finally {
      setBusy(false);
    }
  };

  return { values, set, field, errors, failure, success, busy, submit };
}
