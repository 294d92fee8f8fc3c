import { useEffect } from "react";

export const SITE_TITLE = "provgraph Explorer";

/**
 * The tab's title names what the view shows (`sales_2026.csv · provgraph Explorer`), since the address holds
 * the whole view: tabs, history and bookmarks of several views can then be told apart.
 */
export function useDocumentTitle(subject: string | undefined): void {
  useEffect(() => {
    document.title = subject ? `${subject} · ${SITE_TITLE}` : SITE_TITLE;
  }, [subject]);
}
