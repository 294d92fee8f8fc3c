/** One request's state for a view: loading, its data or its typed error, refetched when its key changes. */
import { useCallback, useEffect, useState } from "react";
import { ApiError, asApiError } from "../api/client";

export interface QueryState<T> {
  data?: T;
  error?: ApiError;
  loading: boolean;
  reload(): void;
}

export function useQuery<T>(key: string | undefined, run: (signal: AbortSignal) => Promise<T>): QueryState<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean; key?: string }>({ loading: !!key });
  const [nonce, setNonce] = useState(0);
  useEffect(() => {
    if (!key) return;
    const controller = new AbortController();
    setState((s) => ({ data: s.key === key ? s.data : undefined, loading: true, key }));
    run(controller.signal)
      .then((data) => !controller.signal.aborted && setState({ data, loading: false, key }))
      .catch((error) => {
        if (controller.signal.aborted) return;
        setState({ error: asApiError(error), loading: false, key });
      });
    return () => controller.abort();
    // `run` is rebuilt each render; the key says when its inputs changed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, nonce]);
  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { ...state, reload };
}
