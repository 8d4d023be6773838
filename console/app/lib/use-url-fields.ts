"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import type { FieldBinding, Fields } from "./use-fields";
import type { PageTrail } from "./use-paged-resource";

/**
 * The query-string parameter that holds the page: one `cursor` per page moved past, oldest first
 * (`?status=failed&cursor=c1&cursor=c2` is page 3). The whole trail, not only the last cursor,
 * so that "Previous" still works after a reload or in a shared link: the list endpoints only
 * answer a `nextCursor`.
 */
export const CURSOR_PARAM = "cursor";

/** The text values of a filter bar's fields (selects, radios, inputs), as they appear in the URL. */
export type UrlValues = Record<string, string>;

/** A filter bar's fields kept in the URL, and the page trail kept beside them. */
export interface UrlFields<V extends UrlValues> extends Fields<V> {
  /** The page shown, for `usePagedResource`: a filter change goes back to page 1. */
  pages: PageTrail;
}

/**
 * The values of a filter bar's fields, read from and written to the URL's query string (the
 * App Router's `useSearchParams`, `useRouter`, `usePathname`), with the page of the list they
 * filter: a reload, Back, or a shared link shows the same filters and page. A field at its
 * default is left out of the URL; a value not among `choices` (an edited or outdated link) reads
 * as the default, so the API never sees it. Changing a filter replaces the history entry (Back
 * leaves the screen rather than undoing each choice) and goes back to page 1; moving between
 * pages pushes one, so Back returns to the page before.
 *
 * A component that calls this must be inside a `<Suspense>` boundary: the static export renders
 * it without a query string, and the boundary's fallback shows until the browser has one.
 *
 * @param defaults every field, with the value it has when the URL does not name it
 * @param choices for fields with a fixed set of values (selects, radios), that set; for others
 *   with a fixed form (a date), a pattern. The default is always allowed.
 * @param errors field name → message, handed to the fields they belong to (as `useFields`)
 * @example
 * const filters = useUrlFields({ status: "", kind: "" }, { status: TRANSACTION_STATES });
 * const txs = usePagedResource("/api/v1/transactions", filters.values, 20, filters.pages);
 * <SelectField id="tx-status" label="State" options={TRANSACTION_STATES} any {...filters.field("status")} />
 */
export function useUrlFields<V extends UrlValues>(
  defaults: V,
  choices: Partial<Record<keyof V, readonly string[] | RegExp>> = {},
  errors: Readonly<Record<string, string>> = {},
): UrlFields<V> {
  const search = useSearchParams();
  const router = useRouter();
  // Trailing-slash routes (next.config.mjs): the page's own URL, so a reload is not redirected.
  const pathname = usePathname();
  const path = pathname.endsWith("/") ? pathname : `${pathname}/`;
  const values = {} as Record<string, string>;
  for (const [name, fallback] of Object.entries(defaults)) {
    const value = search.get(name);
    const allowed = choices[name];
    // The default is always allowed: "" for "any" need not be listed among the choices.
    const refused =
      allowed !== undefined &&
      value !== fallback &&
      !(allowed instanceof RegExp ? allowed.test(value ?? "") : allowed.includes(value ?? ""));
    values[name] = value === null || refused ? fallback : value;
  }

  /** This page's URL with `change` applied to a copy of the current query string. */
  const urlWith = (change: (next: URLSearchParams) => void): string => {
    const next = new URLSearchParams(search.toString());
    change(next);
    const query = next.toString();
    return query === "" ? path : `${path}?${query}`;
  };
  const withCursors = (trail: readonly string[]) =>
    urlWith((next) => {
      next.delete(CURSOR_PARAM);
      for (const cursor of trail) next.append(CURSOR_PARAM, cursor);
    });

  const set = <K extends keyof V>(name: K, value: V[K]) => {
    const key = String(name);
    router.replace(
      urlWith((next) => {
        if (value === defaults[name]) next.delete(key);
        else next.set(key, value);
        next.delete(CURSOR_PARAM);
      }),
      { scroll: false },
    );
  };
  const field = <K extends keyof V & string>(name: K): FieldBinding<V[K]> => ({
    name,
    value: (values as V)[name],
    onChange: (value) => set(name, value),
    error: errors[name],
  });
  const pages: PageTrail = {
    cursors: search.getAll(CURSOR_PARAM).filter((cursor) => cursor !== ""),
    go: (trail) => router.push(withCursors(trail), { scroll: false }),
    reset: () => router.replace(withCursors([]), { scroll: false }),
  };

  return { values: values as V, set, field, pages };
}
