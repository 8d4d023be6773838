import type { ActionResult } from "../../lib/use-action";
import type { Resource } from "../../lib/use-resource";
import { ResultNotice } from "./states";

/** Reloads `resource`, saying "Refreshing…" while it loads. */
export function RefreshButton({
  resource,
}: {
  resource: Pick<Resource<unknown>, "loading" | "reload">;
}) {
  return (
    <button type="button" className="button button-small" onClick={resource.reload}>
      {resource.loading ? "Refreshing…" : "Refresh"}
    </button>
  );
}

/**
 * A titled card around a list: with `refresh`, a Refresh button beside the title; with `notice`,
 * what the last action beside the list did (see `useAction`).
 */
export function Panel({
  title,
  refresh,
  notice,
  children,
}: {
  title: string;
  refresh?: Pick<Resource<unknown>, "loading" | "reload">;
  notice?: ActionResult;
  children: React.ReactNode;
}) {
  return (
    <section className="card">
      {refresh === undefined ? (
        <h2>{title}</h2>
      ) : (
        <div className="toolbar">
          <h2>{title}</h2>
          <RefreshButton resource={refresh} />
        </div>
      )}
      <ResultNotice result={notice} />
      {children}
    </section>
  );
}
