/** What a node on the canvas can ask of its view (a context, so node data stays stable and nodes stay memoised). */
import { createContext, useContext } from "react";
import type { Side } from "./graph-model";

export interface GraphActions {
  expand(nodeId: string, side: Side): void;
  collapse(nodeId: string, side: Side): void;
  showColumns(nodeId: string): void;
}

export const GraphActionsContext = createContext<GraphActions>({ expand: () => undefined, collapse: () => undefined, showColumns: () => undefined });
export const useGraphActions = () => useContext(GraphActionsContext);
