import { Empty } from "../components/Empty";
import { useDocumentTitle } from "../state/document-title";

/** Where the page opens: search first. */
export function HomeView() {
  useDocumentTitle(undefined);
  return (
    <div className="home">
      <h1>Where did this come from?</h1>
      <p className="lead">
        Search for an artifact, a dataset or one of its columns, a run, a job, a pipeline or a policy tag, then open its neighbourhood:
        one hop each way, expanded on demand.
      </p>
      <ul className="home-tips">
        <li>
          <kbd>/</kbd> puts the cursor in the search box; <kbd>↑</kbd> <kbd>↓</kbd> <kbd>Enter</kbd> open a suggestion.
        </li>
        <li>
          In a graph: click <strong>+N</strong> on a node to show what it hides, <kbd>←</kbd> <kbd>→</kbd> move between neighbours,{" "}
          <kbd>e</kbd> expands, <kbd>c</kbd> collapses, <kbd>Esc</kbd> clears the selection; <kbd>Tab</kbd> reaches the boxes and{" "}
          <kbd>Enter</kbd> opens one.
        </li>
        <li>The address bar holds the whole view: copy it to share exactly what you see.</li>
      </ul>
      <Empty title="Nothing open yet">Type a few letters of a name above.</Empty>
    </div>
  );
}
