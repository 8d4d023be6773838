"use client";

import { useId, useState } from "react";
import type { z } from "zod";
import { useForm } from "../../lib/use-form";
import { useWrite, type Write } from "../../lib/use-write";
import { TextField } from "../common/text-field";
import { TxProgress } from "./tx-progress";

/** A text field of a `WriteAction` form. */
export interface ActionField {
  name: string;
  label: string;
  initial?: string;
  placeholder?: string;
  inputMode?: "decimal" | "numeric" | "text";
}

/**
 * One on-chain action beside the data (list, delist, buy, transfer): the button opens its
 * fields (if any), "Review" validates them with `schema` and asks `question`, "Confirm" sends the
 * write in async mode and shows its progress until it is mined (see `useWrite`). Pass `write`
 * (one `useWrite` of the screen) when the action may vanish once it succeeds; the screen then
 * shows the progress itself.
 */
export function WriteAction<T>({
  label,
  fields = [],
  schema,
  question,
  path,
  body,
  doneText,
  onSettled,
  danger = false,
  write: shared,
}: {
  label: string;
  fields?: readonly ActionField[];
  schema: z.ZodType<T>;
  question: (values: T) => string;
  path: string;
  body: (values: T) => unknown;
  doneText: string;
  onSettled?: () => void;
  danger?: boolean;
  write?: Write;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [review, setReview] = useState<T | undefined>(undefined);
  const form = useForm<Record<string, string>, T>(
    schema,
    Object.fromEntries(fields.map((f) => [f.name, f.initial ?? ""])),
    setReview,
  );
  const own = useWrite(onSettled);
  const write = shared ?? own;
  const busy = write.state.phase === "submitting" || write.state.phase === "pending";

  const close = () => {
    setOpen(false);
    setReview(undefined);
  };

  return (
    <div className="action" data-testid={`action-${label.toLowerCase().replace(/\s+/g, "-")}`}>
      {!open && !busy && (
        <button
          type="button"
          className={`button button-small${danger ? " button-danger" : ""}`}
          onClick={() => {
            write.reset();
            setOpen(true);
          }}
        >
          {label}
        </button>
      )}
      {open && review === undefined && (
        <form
          className="action-form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void form.submit();
          }}
        >
          {fields.map((field) => (
            <div key={field.name} className="action-field">
              <TextField
                id={`${id}-${field.name}`}
                label={field.label}
                placeholder={field.placeholder}
                inputMode={field.inputMode}
                autoComplete="off"
                {...form.field(field.name)}
              />
            </div>
          ))}
          <div className="action-buttons">
            <button type="submit" className="button button-small button-primary">
              Review
            </button>
            <button type="button" className="button button-small" onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {open && review !== undefined && (
        <div className="confirm" role="group" aria-label={question(review)}>
          <span className="confirm-question">{question(review)}</span>
          <button
            type="button"
            className={`button button-small ${danger ? "button-danger" : "button-primary"}`}
            onClick={() => {
              const data = review;
              close();
              void write.run(path, body(data), doneText);
            }}
          >
            Confirm
          </button>
          <button
            type="button"
            className="button button-small"
            onClick={() => setReview(undefined)}
          >
            Back
          </button>
        </div>
      )}
      {shared === undefined && <TxProgress state={write.state} />}
    </div>
  );
}
