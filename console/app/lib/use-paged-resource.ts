"use client";

import { useState } from "react";
import { api, query } from "./api";
import type { Page } from "./types";
import { useResource, type Resource } from "./use-resource";

/** Previous / next over cursor pages, as `Pager` and `DataTable` take it. */
export interface CursorPagination {
  page: number;
  nextCursor: string | null | undefined;
  onPrevious: () => void;
  onNext: (cursor: string) => void;
}

/** The rows of one page of a list endpoint, with the pagination to move between pages. */
export interface PagedResource<T> extends Resource<T[]> {
  pagination: CursorPagination;
  /** Back to the first page (a filter applied again). */
  firstPage: () => void;
}

/**
 * `GET path?params&limit&cursor` of a cursor-paginated list (`{ data, nextCursor }`), one page at
 * a time. The cursors of the pages seen so far are kept, so "Previous" works although the API
 * only gives a `nextCursor`; other `params` (a changed filter) start again from the first page.
 *
 * @example
 * const txs = usePagedResource<TransactionSummary>("/api/v1/transactions", { status }, 20);
 * <DataTable resource={txs} pagination={txs.pagination} ... />
 */
export function usePagedResource<T>(
  path: string,
  params: Record<string, string | number | undefined | null>,
  pageSize: number,
): PagedResource<T> {
  const filter = `${path}${query({ ...params, limit: pageSize })}`;
  const [seen, setSeen] = useState<{ filter: string; cursors: Array<string | undefined> }>({
    filter,
    cursors: [undefined],
  });
  // A new filter starts from the first page (state adjusted while rendering, as React advises).
  if (seen.filter !== filter) setSeen({ filter, cursors: [undefined] });
  const cursors = seen.filter === filter ? seen.cursors : [undefined];
  const url = `${path}${query({ ...params, limit: pageSize, cursor: cursors[cursors.length - 1] })}`;
  const page = useResource(url, () => api<Page<T>>("GET", url));
  return {
    ...page,
    data: page.data?.data,
    pagination: {
      page: cursors.length,
      nextCursor: page.data?.nextCursor,
      onPrevious: () =>
        setSeen({ filter, cursors: cursors.length > 1 ? cursors.slice(0, -1) : cursors }),
      onNext: (next) => setSeen({ filter, cursors: [...cursors, next] }),
    },
    firstPage: () => setSeen({ filter, cursors: [undefined] }),
  };
}
