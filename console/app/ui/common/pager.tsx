import type { CursorPagination } from "../../lib/use-paged-resource";

/** Previous / next buttons for cursor pagination. */
export function Pager({ page, nextCursor, onPrevious, onNext }: CursorPagination) {
  return (
    <div className="pager">
      <button
        type="button"
        className="button button-small"
        disabled={page <= 1}
        onClick={onPrevious}
      >
        Previous
      </button>
      <span className="muted">Page {page}</span>
      <button
        type="button"
        className="button button-small"
        disabled={nextCursor === null || nextCursor === undefined}
        onClick={() => {
          if (nextCursor !== null && nextCursor !== undefined) onNext(nextCursor);
        }}
      >
        Next
      </button>
    </div>
  );
}
