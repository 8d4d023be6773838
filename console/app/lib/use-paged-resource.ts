"use client";

import { useEffect, useRef, useState } from "react";
import { api, ApiError, query } from "./api";
import type { ListRow, PagedPath } from "./types";
import { useResource, type Resource } from "./use-resource";

/** Previous / next over cursor pages, as `Pager` and `DataTable` take it. */
export interface CursorPagination {
  page: number;
  nextCursor: string | null | undefined;
  onPrevious: () => void;
  onNext: (cursor: string) => void;
}

/**
 * Where the cursors that reached the page shown are kept: in the component by default, or in the
 * URL (`useUrlFields`), so a reload or a shared link shows the same page.
 */
export interface PageTrail {
  /** The cursors moved past, oldest first: empty on page 1, one per page after it. */
  cursors: readonly string[];
  /** Shows the page that `cursors` reach. */
  go: (cursors: readonly string[]) => void;
  /** Back to page 1 (a filter applied again, or a cursor the API refused). */
  reset: () => void;
}

/** The rows of one page of a list endpoint, with the pagination to move between pages. */
export interface PagedResource<T> extends Resource<T[]> {
  pagination: CursorPagination;
  /** Back to the first page (a filter applied again). */
  firstPage: () => void;
}

/** What a page read answers when the API refused its cursor: the page shown goes back to 1. */
const REFUSED_CURSOR = Symbol("refused cursor");

/**
 * The page trail kept in the component: other `params` (a changed filter) start again from the
 * first page (state adjusted while rendering, as React advises).
 */
function useLocalTrail(filter: string): PageTrail {
  const [seen, setSeen] = useState<{ filter: string; cursors: readonly string[] }>({
    filter,
    cursors: [],
  });
  if (seen.filter !== filter) setSeen({ filter, cursors: [] });
  return {
    cursors: seen.filter === filter ? seen.cursors : [],
    go: (cursors) => setSeen({ filter, cursors }),
    reset: () => setSeen({ filter, cursors: [] }),
  };
}

/**
 * `GET path?params&limit&cursor` of a cursor-paginated list (`{ data, nextCursor }`), one page at
 * a time. The cursors of the pages seen so far are kept (in the component, or in `trail`: the
 * URL's, from `useUrlFields`), so "Previous" works although the API only gives a `nextCursor`.
 * A cursor the API refuses (400: a link edited by hand or from another deployment) is not an
 * error to retry forever: the list goes back to page 1. The rows' type is the path's own, from the
 * OpenAPI document (`PagedPath`: the `GET`s that answer a cursor page).
 *
 * @example
 * const txs = usePagedResource("/api/v1/transactions", { status }, 20); // rows: TransactionSummary
 * <DataTable resource={txs} pagination={txs.pagination} ... />
 */
export function usePagedResource<P extends PagedPath>(
  path: P,
  params: Record<string, string | number | undefined | null>,
  pageSize: number,
  trail?: PageTrail,
): PagedResource<ListRow<P>> {
  const local = useLocalTrail(`${path}${query({ ...params, limit: pageSize })}`);
  const { cursors, go, reset } = trail ?? local;
  const cursor = cursors.at(-1);
  const url = `${path}${query({ ...params, limit: pageSize, cursor })}`;
  const page = useResource(url, async () => {
    try {
      return await api<{ data: ListRow<P>[]; nextCursor: string | null }>("GET", url);
    } catch (caught) {
      if (cursor !== undefined && caught instanceof ApiError && caught.status === 400)
        return REFUSED_CURSOR;
      throw caught;
    }
  });
  const refused = page.data === REFUSED_CURSOR;
  const resetRef = useRef(reset);
  resetRef.current = reset;
  useEffect(() => {
    if (refused) resetRef.current();
  }, [refused]);
  const data = page.data === REFUSED_CURSOR ? undefined : page.data;
  return {
    ...page,
    // Until page 1 has come, the list is loading, not empty.
    loading: page.loading || refused,
    data: data?.data,
    pagination: {
      page: cursors.length + 1,
      nextCursor: data?.nextCursor,
      onPrevious: () => go(cursors.slice(0, -1)),
      onNext: (next) => go([...cursors, next]),
    },
    firstPage: reset,
  };
}
