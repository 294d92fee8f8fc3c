/**
 * The URL is the view: every route and its settings live in the path and query string, so a view can be
 * shared or bookmarked. A small history-API router (no library: four routes, one hook).
 */
import { useSyncExternalStore } from "react";

export const BASE = "/explorer";
const CHANGE = "provgraph:navigate";

function subscribe(listener: () => void): () => void {
  window.addEventListener("popstate", listener);
  window.addEventListener(CHANGE, listener);
  return () => {
    window.removeEventListener("popstate", listener);
    window.removeEventListener(CHANGE, listener);
  };
}

const snapshot = () => window.location.pathname + window.location.search;

export interface Location {
  /** The route's path below /explorer: "/", "/graph", "/pipeline", "/coverage", "/search". */
  route: string;
  params: URLSearchParams;
}

export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(href, window.location.origin);
  const route = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) || "/" : "/";
  return { route: route.replace(/\/+$/, "") || "/", params: url.searchParams };
}

/** A link to a route with these settings (undefined and empty values left out). */
export function hrefOf(route: string, params: Record<string, string | number | boolean | undefined | null> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === "" || value === false) continue;
    search.set(key, value === true ? "1" : String(value));
  }
  const query = search.toString();
  return `${BASE}${route === "/" ? "/" : route}${query ? `?${query}` : ""}`;
}

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (href === snapshot()) return;
  if (options.replace) window.history.replaceState(null, "", href);
  else window.history.pushState(null, "", href);
  window.dispatchEvent(new Event(CHANGE));
}

/** Changes some settings of the current route, keeping the others. */
export function updateParams(changes: Record<string, string | number | boolean | undefined | null>, options: { replace?: boolean } = {}): void {
  const url = new URL(window.location.href);
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined || value === null || value === "" || value === false) url.searchParams.delete(key);
    else url.searchParams.set(key, value === true ? "1" : String(value));
  }
  navigate(url.pathname + url.search, options);
}
