"use client";

import { useMemo, useState } from "react";
import { CopyButton } from "./copy-button";
import { Pager } from "./pager";
import { EmptyState, ErrorState, Loading } from "./states";

/** One column of a `DataTable`. */
export interface Column<T> {
  /** Stable id (also the sort key's name). */
  id: string;
  header: string;
  /** The cell's content. */
  cell: (row: T) => React.ReactNode;
  /** When given, the header sorts the rows on this value (this page only). */
  sortValue?: (row: T) => string | number;
  /** When given, the cell gets a copy button that copies this text. */
  copy?: (row: T) => string | null;
  /** Hidden header text (action columns): the column still has a name for screen readers. */
  hiddenHeader?: boolean;
}

/** Cursor pagination of a `DataTable` (see `useCursorPages`). */
export interface TablePagination {
  page: number;
  nextCursor: string | null | undefined;
  onPrevious: () => void;
  onNext: (cursor: string) => void;
}

type Sort = { id: string; direction: "ascending" | "descending" } | undefined;

/**
 * The console's one table: loading, error (with retry) and empty states, sortable headers
 * (`aria-sort`, keyboard operable buttons), copy buttons on id and hash cells, and cursor
 * pagination. Every list screen composes it instead of writing its own `<table>`.
 *
 * @example
 * <DataTable caption="API keys" rows={keys.data?.keys} loading={keys.loading} error={keys.error}
 *   onRetry={keys.reload} rowKey={(k) => k.keyId} columns={[{ id: "label", header: "Label", cell: (k) => k.label }]}
 *   empty={{ title: "No keys yet" }} />
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  loading,
  error,
  onRetry,
  rowKey,
  rowTestId,
  empty,
  pagination,
  loadingLabel,
}: {
  /** The table's accessible name (shown to screen readers). */
  caption: string;
  columns: ReadonlyArray<Column<T>>;
  rows: readonly T[] | undefined;
  loading: boolean;
  error: string | undefined;
  onRetry?: () => void;
  rowKey: (row: T) => string;
  rowTestId?: string | ((row: T) => string);
  empty: { title: string; hint?: React.ReactNode };
  pagination?: TablePagination;
  loadingLabel?: string;
}) {
  const [sort, setSort] = useState<Sort>(undefined);
  const sorted = useMemo(() => {
    if (rows === undefined || sort === undefined) return rows;
    const column = columns.find((c) => c.id === sort.id);
    if (column?.sortValue === undefined) return rows;
    const value = column.sortValue;
    const factor = sort.direction === "ascending" ? 1 : -1;
    return [...rows].sort((a, b) => {
      const x = value(a);
      const y = value(b);
      return (x < y ? -1 : x > y ? 1 : 0) * factor;
    });
  }, [rows, sort, columns]);

  if (loading && rows === undefined)
    return <Loading label={loadingLabel ?? `Loading ${caption.toLowerCase()}…`} />;
  if (error !== undefined) return <ErrorState message={error} onRetry={onRetry} />;
  if (sorted === undefined || sorted.length === 0) {
    return (
      <>
        <EmptyState title={empty.title}>{empty.hint}</EmptyState>
        {pagination !== undefined && pagination.page > 1 && <Pager {...pagination} />}
      </>
    );
  }

  const toggle = (id: string) =>
    setSort((current) =>
      current?.id !== id
        ? { id, direction: "ascending" }
        : current.direction === "ascending"
          ? { id, direction: "descending" }
          : undefined,
    );

  return (
    <>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((column) => (
                <th
                  key={column.id}
                  scope="col"
                  aria-sort={sort?.id === column.id ? sort.direction : undefined}
                >
                  {column.hiddenHeader === true ? (
                    <span className="visually-hidden">{column.header}</span>
                  ) : column.sortValue !== undefined ? (
                    <button type="button" className="sort" onClick={() => toggle(column.id)}>
                      {column.header}
                      <span aria-hidden="true" className="sort-mark">
                        {sort?.id !== column.id ? "↕" : sort.direction === "ascending" ? "↑" : "↓"}
                      </span>
                    </button>
                  ) : (
                    column.header
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {sorted.map((row) => (
              <tr
                key={rowKey(row)}
                data-testid={typeof rowTestId === "function" ? rowTestId(row) : rowTestId}
              >
                {columns.map((column) => {
                  const copyText = column.copy?.(row) ?? null;
                  return (
                    <td
                      key={column.id}
                      data-label={column.hiddenHeader === true ? undefined : column.header}
                    >
                      {copyText === null ? (
                        column.cell(row)
                      ) : (
                        <span className="copy-cell">
                          {column.cell(row)}
                          <CopyButton value={copyText} label="Copy" compact />
                        </span>
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pagination !== undefined && <Pager {...pagination} />}
    </>
  );
}
