"use client";

import { useEffect, useRef, useState } from "react";
import type { FieldBinding } from "./use-fields";

/**
 * A text field that filters as one types, bound to a field of `useUrlFields`. The field keeps its
 * own text and hands it on `ms` after the last key: written at every key, the URL would lag
 * behind the typing and a key typed before the previous one reached it would be lost. A change
 * of the bound value that the typing did not make (Back, a link) replaces the text.
 *
 * @example
 * const search = useUrlFields({ q: "" });
 * <TextField id="org-search" label="Search organizations" {...useDebouncedField(search.field("q"))} />
 */
export function useDebouncedField(binding: FieldBinding<string>, ms = 300): FieldBinding<string> {
  const [text, setText] = useState(binding.value);
  const [bound, setBound] = useState(binding.value);
  /** The last value handed on (or adopted): the bound value is expected to become it. */
  const handed = useRef(binding.value);
  const onChange = useRef(binding.onChange);
  onChange.current = binding.onChange;

  // State adjusted while rendering, as React advises: the bound value moved on its own.
  if (binding.value !== bound) {
    setBound(binding.value);
    if (binding.value !== handed.current) {
      handed.current = binding.value;
      setText(binding.value);
    }
  }

  useEffect(() => {
    if (text === handed.current) return;
    const timer = setTimeout(() => {
      handed.current = text;
      onChange.current(text);
    }, ms);
    return () => clearTimeout(timer);
  }, [text, ms]);

  return { ...binding, value: text, onChange: setText };
}
