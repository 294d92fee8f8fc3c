/**
 * Runs recorded while the page is open (the runRecorded subscription over graphql-ws): the feed panel
 * lists them, and a graph view adds those that touch what it shows.
 */
import { createContext, type ReactNode, useContext, useEffect, useRef, useState } from "react";
import { type ApiError, RunRecordedDocument, type RunRecordedSubscription, subscribe } from "../api/client";

export type RunEvent = RunRecordedSubscription["runRecorded"];

interface LiveFeed {
  events: RunEvent[];
  status: "connecting" | "live" | "error";
  error?: ApiError;
  /** Called for each new run; returns the unsubscribe function. */
  listen(listener: (event: RunEvent) => void): () => void;
}

const Context = createContext<LiveFeed>({ events: [], status: "connecting", listen: () => () => undefined });
const KEEP = 50;

export function LiveFeedProvider({ children }: { children: ReactNode }) {
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [status, setStatus] = useState<LiveFeed["status"]>("connecting");
  const [error, setError] = useState<ApiError>();
  const listeners = useRef(new Set<(event: RunEvent) => void>());
  useEffect(
    () =>
      subscribe(RunRecordedDocument, {}, {
        connected: () => {
          setStatus("live");
          setError(undefined);
        },
        next: (data) => {
          setStatus("live");
          setEvents((list) => [data.runRecorded, ...list].slice(0, KEEP));
          for (const listener of listeners.current) listener(data.runRecorded);
        },
        error: (e) => {
          setStatus("error");
          setError(e);
        },
      }),
    [],
  );
  const feed: LiveFeed = {
    events,
    status,
    error,
    listen: (listener) => {
      listeners.current.add(listener);
      return () => listeners.current.delete(listener);
    },
  };
  return <Context.Provider value={feed}>{children}</Context.Provider>;
}

export const useLiveFeed = () => useContext(Context);
