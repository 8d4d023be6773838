"use client";

import { useMemo, useState } from "react";
import type { CursorPagination } from "../../lib/use-paged-resource";
import type { Resource } from "../../lib/use-resource";
import { CopyButton } from "./copy-button";
import { Pager } from "./pager";
import { EmptyState, ResourceView } from "./states";

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
  /** Long text (a reason): the cell wraps instead of widening the table. */
  wrap?: boolean;
}

type Sort = { id: string; direction: "ascending" | "descending" } | undefined;

/**
 * The console's one table: the rows of `resource`, with its loading, error (with retry) and
 * empty states, sortable headers (`aria-sort`, keyboard operable buttons), copy buttons
 * on id and hash cells, and cursor pagination. Every list screen composes it instead of writing
 * its own `<table>`; `columns.tsx` builds the usual kinds of column.
 *
 * @example
 * <DataTable caption="API keys" resource={keys} rowKey={(k) => k.keyId}
 *   columns={[valueColumn("label", "Label", (k) => k.label)]} empty={{ title: "No keys yet" }} />
 */
export function DataTable<T>({
  caption,
  columns,
  resource,
  rowKey,
  rowTestId,
  empty,
  pagination,
  loadingLabel,
}: {
  /** The table's accessible name (shown to screen readers). */
  caption: string;
  columns: ReadonlyArray<Column<T>>;
  /** The rows, with their loading and error states. */
  resource: Resource<readonly T[]>;
  rowKey: (row: T) => string;
  rowTestId?: string | ((row: T) => string);
  empty: { title: string; hint?: React.ReactNode };
  pagination?: CursorPagination;
  loadingLabel?: string;
}) {
  const [sort, setSort] = useState<Sort>(undefined);
  const rows = resource.data;
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

  const toggle = (id: string) =>
    setSort((current) =>
      current?.id !== id
        ? { id, direction: "ascending" }
        : current.direction === "ascending"
          ? { id, direction: "descending" }
          : undefined,
    );

  return (
    <ResourceView
      resource={resource}
      loadingLabel={loadingLabel ?? `Loading ${caption.toLowerCase()}…`}
      isEmpty={(data) => data.length === 0}
      empty={
        <>
          <EmptyState title={empty.title}>{empty.hint}</EmptyState>
          {pagination !== undefined && pagination.page > 1 && <Pager {...pagination} />}
        </>
      }
    >
      {() => (
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
                            {sort?.id !== column.id
                              ? "↕"
                              : sort.direction === "ascending"
                                ? "↑"
                                : "↓"}
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
                {(sorted ?? []).map((row) => (
                  <tr
                    key={rowKey(row)}
                    data-testid={typeof rowTestId === "function" ? rowTestId(row) : rowTestId}
                  >
                    {columns.map((column) => {
                      const copyText = column.copy?.(row) ?? null;
                      return (
                        <td
                          key={column.id}
                          className={column.wrap === true ? "wrap" : undefined}
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
      )}
    </ResourceView>
  );
}
