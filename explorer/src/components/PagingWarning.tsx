import { useLayoutEffect, useRef } from "react";

/**
 * Before drawing hundreds: how many a side hides, and a choice of a first page or all. A modal `<dialog>`, so
 * the browser keeps the keyboard inside it, Esc cancels, and the focus goes back to the +N that opened it.
 */
export function PagingWarning({ count, side, pageSize, onPage, onAll, onCancel }: { count: number; side: string; pageSize: number; onPage(): void; onAll(): void; onCancel(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useLayoutEffect(() => {
    const element = dialog.current;
    if (!element) return;
    // showModal is missing where there is no layout (jsdom): an open dialog there, as before.
    if (typeof element.showModal === "function") element.showModal();
    else element.setAttribute("open", "");
    // Closed before React removes it, so the browser hands the focus back to where it was.
    return () => (typeof element.close === "function" ? element.close() : element.removeAttribute("open"));
  }, []);
  return (
    <dialog
      ref={dialog}
      className="modal"
      role="alertdialog"
      aria-labelledby="paging-title"
      onCancel={(event) => {
        // Esc: closed by the page (the graph's keys stand down while it is open), not by the browser alone.
        event.preventDefault();
        onCancel();
      }}
      // A click on the backdrop lands on the dialog itself, outside its content.
      onClick={(event) => event.target === event.currentTarget && onCancel()}
    >
      <div className="modal-content">
        <h2 id="paging-title">
          {count.toLocaleString()} {side} neighbours
        </h2>
        <p>
          Drawing hundreds of nodes at once makes the graph hard to read. Show them {pageSize} at a time (a “more” button fetches the next page), or all
          of them.
        </p>
        <div className="modal-actions">
          <button className="button primary" autoFocus onClick={onPage} data-testid="paging-first">
            Show the first {pageSize}
          </button>
          <button className="button" onClick={onAll}>
            Show all {count.toLocaleString()}
          </button>
          <button className="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
    </dialog>
  );
}
