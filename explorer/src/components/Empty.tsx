import type { ReactNode } from "react";

/** Nothing to show, and why (or what to do next). `heading`: it is the whole view, so its title is the page's heading. */
export function Empty({ title, heading, children }: { title: string; heading?: boolean; children?: ReactNode }) {
  const Title = heading ? "h1" : "div";
  return (
    <div className="empty">
      <Title className="empty-title">{title}</Title>
      {children && <div className="empty-body">{children}</div>}
    </div>
  );
}
