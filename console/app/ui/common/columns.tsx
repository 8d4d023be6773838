import { formatTime, shortHex } from "../../lib/format";
import type { Column } from "./data-table";
import { StatusPill, Tags, type Tone } from "./states";

/**
 * Column builders for `DataTable`: the kinds of cell the console's lists repeat (a value, a time,
 * a hash or address, a state, tags, the row's actions). Each returns a plain `Column`, so a screen
 * mixes them with columns of its own.
 */

/** The value itself, sortable. */
export function valueColumn<T>(
  id: string,
  header: string,
  value: (row: T) => string | number,
): Column<T> {
  return { id, header, cell: value, sortValue: value };
}

/** A time (local date and time, an em dash when absent), sortable. */
export function timeColumn<T>(
  id: string,
  header: string,
  at: (row: T) => string | null,
): Column<T> {
  return { id, header, cell: (row) => formatTime(at(row)), sortValue: (row) => at(row) ?? "" };
}

/**
 * A hash or address, shortened (the full value in the title attribute), with a copy button
 * unless `copy` is false; an em dash when absent.
 */
export function hexColumn<T>(
  id: string,
  header: string,
  value: (row: T) => string | null,
  { copy = true, keep = 6 }: { copy?: boolean; keep?: number } = {},
): Column<T> {
  return {
    id,
    header,
    cell: (row) => {
      const hex = value(row);
      return hex === null ? "—" : <code title={hex}>{shortHex(hex, keep)}</code>;
    },
    copy: copy ? value : undefined,
  };
}

/** A state as a label coloured by `tones` (state → tone), sortable by its name. */
export function statusColumn<T, S extends string>(
  id: string,
  header: string,
  status: (row: T) => S,
  tones: Readonly<Record<S, Tone>>,
  testId?: string,
): Column<T> {
  return {
    id,
    header,
    cell: (row) => (
      <StatusPill tone={tones[status(row)]} testId={testId}>
        {status(row)}
      </StatusPill>
    ),
    sortValue: status,
  };
}

/** Short names (scopes) as tags. */
export function tagsColumn<T>(id: string, header: string, names: (row: T) => string[]): Column<T> {
  return { id, header, cell: (row) => <Tags names={names(row)} /> };
}

/** The row's buttons, under a header only screen readers hear. */
export function actionsColumn<T>(cell: (row: T) => React.ReactNode): Column<T> {
  return { id: "actions", header: "Actions", hiddenHeader: true, cell };
}
