import type { ActionResult } from "../../lib/use-action";
import type { Resource } from "../../lib/use-resource";

/** Loading, empty and error states shared by every screen. */

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div className="state state-empty">
      <p className="state-title">{title}</p>
      {children}
    </div>
  );
}

export function ErrorState({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <p className="state-title">Something went wrong</p>
      <p>{message}</p>
      {onRetry !== undefined && (
        <button type="button" className="button" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

/** An inline result line under a form or button (success or failure). */
export function Notice({ kind, children }: { kind: "ok" | "error"; children: React.ReactNode }) {
  return (
    <p className={`notice notice-${kind}`} role={kind === "error" ? "alert" : "status"}>
      {children}
    </p>
  );
}

/** What the last action said (`useAction`), or nothing before the first. */
export function ResultNotice({ result }: { result: ActionResult }) {
  return result === undefined ? null : <Notice kind={result.kind}>{result.text}</Notice>;
}

/**
 * A resource's loading and error states, then `empty` when it has no data (or `isEmpty` says so),
 * else `children` with the data: the order every list, chart and detail view shows them in.
 */
export function ResourceView<T>({
  resource,
  loadingLabel,
  isEmpty,
  empty = null,
  children,
}: {
  resource: Resource<T>;
  loadingLabel: string;
  isEmpty?: (data: T) => boolean;
  empty?: React.ReactNode;
  children: (data: T) => React.ReactNode;
}) {
  if (resource.loading && resource.data === undefined) return <Loading label={loadingLabel} />;
  if (resource.error !== undefined)
    return <ErrorState message={resource.error} onRetry={resource.reload} />;
  if (resource.data === undefined || isEmpty?.(resource.data) === true) return empty;
  return children(resource.data);
}

/** The colours of a state: done or fine, inactive, failed, under way. */
export type Tone = "ok" | "off" | "bad" | "live";

/** A small coloured label: a state in a row or a card. */
export function StatusPill({
  tone,
  title,
  testId,
  children,
}: {
  tone: Tone;
  title?: string;
  testId?: string;
  children: React.ReactNode;
}) {
  return (
    <span className={`status status-${tone}`} title={title} data-testid={testId}>
      {children}
    </span>
  );
}

/** A list of short names (scopes) as tags. */
export function Tags({ names }: { names: readonly string[] }) {
  return (
    <span className="tags">
      {names.map((name) => (
        <span key={name} className="tag">
          {name}
        </span>
      ))}
    </span>
  );
}

/** The message under an invalid field. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (message === undefined) return null;
  return (
    <p className="field-error" id={id}>
      {message}
    </p>
  );
}
