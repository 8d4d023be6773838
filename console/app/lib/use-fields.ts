"use client";

import { useState } from "react";

/** The raw values of a form's fields: text (inputs, selects, radios) or a chosen subset. */
export type FieldValues = Record<string, string | string[]>;

/** What a field component needs: its name and value, how to change it, and its error. */
export interface FieldBinding<V> {
  name: string;
  value: V;
  onChange: (value: V) => void;
  error: string | undefined;
}

/** Values of a set of fields, and the props that bind each field component to them. */
export interface Fields<V extends FieldValues> {
  values: V;
  set: <K extends keyof V>(name: K, value: V[K]) => void;
  /** The props of the field `name` (`TextField`, `SelectField`, `RadioGroup`, `CheckboxGroup`). */
  field: <K extends keyof V & string>(name: K) => FieldBinding<V[K]>;
}

/**
 * The values of a form's or a filter bar's fields, starting from `initial`, with `errors` (field
 * name → message) handed to the fields they belong to.
 *
 * @example
 * const filters = useFields({ status: "", kind: "" });
 * <SelectField id="tx-kind" label="Kind" options={KINDS} any {...filters.field("kind")} />
 */
export function useFields<V extends FieldValues>(
  initial: V,
  errors: Readonly<Record<string, string>> = {},
): Fields<V> {
  const [values, setValues] = useState<V>(initial);
  const set = <K extends keyof V>(name: K, value: V[K]) =>
    setValues((current) => ({ ...current, [name]: value }));
  const field = <K extends keyof V & string>(name: K): FieldBinding<V[K]> => ({
    name,
    value: values[name],
    onChange: (value) => set(name, value),
    error: errors[name],
  });
  return { values, set, field };
}
