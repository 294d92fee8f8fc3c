import type { KeyboardEvent } from "react";

/**
 * Enter or Space on a focused box, taken as a click on it. React Flow makes boxes focusable (Tab reaches
 * them) but reports those keys only as selection changes, which the page's graphs, controlled by the
 * address, do not take. A button inside a box (its +N) keeps its own Enter. Put on the canvas's element.
 */
export function onBoxKey(choose: (nodeId: string, event: { shiftKey: boolean }) => void): (event: KeyboardEvent) => void {
  return (event) => {
    const target = event.target as HTMLElement;
    if ((event.key !== "Enter" && event.key !== " ") || !target.classList.contains("react-flow__node")) return;
    const id = target.getAttribute("data-id");
    if (!id) return;
    event.preventDefault();
    choose(id, event);
  };
}
