"use client";

import { useCallback, useState } from "react";

/**
 * Cursor pagination state: the cursors of the pages seen so far, so "Previous" works although
 * the API only gives a `nextCursor`. `reset` goes back to the first page (after a filter change).
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const next = useCallback((nextCursor: string) => setCursors((c) => [...c, nextCursor]), []);
  const previous = useCallback(() => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)), []);
  const reset = useCallback(() => setCursors([undefined]), []);
  return { cursor, page: cursors.length, next, previous, reset };
}
