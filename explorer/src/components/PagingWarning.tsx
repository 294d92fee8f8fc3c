/** Before drawing hundreds: how many a side hides, and a choice of a first page or all. */
export function PagingWarning({ count, side, pageSize, onPage, onAll, onCancel }: { count: number; side: string; pageSize: number; onPage(): void; onAll(): void; onCancel(): void }) {
  return (
    <div className="modal-backdrop" role="presentation" onClick={onCancel}>
      <div className="modal" role="alertdialog" aria-modal="true" aria-labelledby="paging-title" onClick={(e) => e.stopPropagation()}>
        <h3 id="paging-title">{count.toLocaleString()} {side} neighbours</h3>
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
    </div>
  );
}
