"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { messageOf } from "./api";

/** Loading, error and data of one request, with `reload` for retry buttons and after changes. */
export interface Resource<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs `load` on mount and whenever `key` changes; a stale answer (an older key) is dropped.
 *
 * @example
 * const keys = useResource("keys", () => api<{ keys: ApiKeySummary[] }>("GET", "/api/enterprise/keys"));
 */
export function useResource<T>(key: string, load: () => Promise<T>): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    let current = true;
    setLoading(true);
    setError(undefined);
    loadRef
      .current()
      .then((value) => {
        if (!current) return;
        setData(value);
        setLoading(false);
      })
      .catch((caught: unknown) => {
        if (!current) return;
        setError(messageOf(caught));
        setLoading(false);
      });
    return () => {
      current = false;
    };
  }, [key, generation]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { data, error, loading, reload };
}
