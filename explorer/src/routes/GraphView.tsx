import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ApiError, asApiError, ExpandDocument, LineageGraphDocument, LineagePathDocument, type LineagePathQuery, request } from "../api/client";
import { DetailsPanel } from "../components/DetailsPanel";
import { Empty } from "../components/Empty";
import { ErrorNotice } from "../components/ErrorNotice";
import { GraphCanvas } from "../components/GraphCanvas";
import { GraphToolbar, type GraphSettings } from "../components/GraphToolbar";
import { Loading } from "../components/Loading";
import { PagingWarning } from "../components/PagingWarning";
import type { Highlights } from "../graph/flow-elements";
import { type GraphActions, GraphActionsContext } from "../graph/graph-actions";
import { addPage, collapse, type GraphModel, mergeGraph, modelOf, neighbours, reachable, type Side } from "../graph/graph-model";
import { columnCounts, hasServerLayout, placeAll, refineWithElk } from "../graph/initial-layout";
import { alignLanes } from "../graph/align-lanes";
import { placeNewNodes } from "../graph/place-new-nodes";
import { useLiveFeed } from "../state/live-feed";
import { DEFAULT_MAX_NODES, graphParamsOf, openParamOf } from "./graph-params";
import { updateParams, useLocation } from "./router";
import { useDocumentTitle } from "../state/document-title";

/** Expansions fetch this many neighbours a page; more than WARN_AT hidden asks first. */
export const PAGE_SIZE = 50;
export const WARN_AT = 100;
const FIRST = 200;

interface Loaded {
  key: string;
  model: GraphModel;
  layoutNonce: number;
}

/**
 * `/graph?root=…`: a neighbourhood, expanded and collapsed one node at a time, with its details panel,
 * paths between two nodes, column lineage, the as-of instant and runs arriving live.
 */
export function GraphView() {
  const { params } = useLocation();
  const settings = graphParamsOf(params);
  const queryKey = JSON.stringify([settings.roots, settings.direction, settings.depth, settings.stepBoundaryOnly, settings.columns, settings.asOf, settings.maxNodes]);
  const [loaded, setLoaded] = useState<Loaded>();
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState<string>();
  const [warning, setWarning] = useState<{ nodeId: string; side: Side; count: number }>();
  const [paths, setPaths] = useState<LineagePathQuery["lineagePath"]>();
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const [reloadNonce, setReloadNonce] = useState(0);
  const model = loaded?.key === queryKey ? loaded.model : undefined;
  const modelRef = useRef(model);
  modelRef.current = model;
  const openRef = useRef(settings.open);
  openRef.current = settings.open;

  const vars = { asOf: settings.asOf ?? null, stepBoundaryOnly: settings.stepBoundaryOnly, columns: settings.columns };

  // The neighbourhood: fetched when its settings change, then the URL's expansions replayed.
  useEffect(() => {
    if (!settings.roots.length) return;
    const controller = new AbortController();
    setError(undefined);
    (async () => {
      const data = await request(
        LineageGraphDocument,
        { roots: settings.roots, direction: settings.direction, depth: settings.depth, layout: true, first: settings.maxNodes, ...vars },
        controller.signal,
      );
      let next = modelOf(data.lineageGraph);
      const serverLaid = hasServerLayout(next);
      next = placeAll(next);
      for (const { nodeId, side } of openRef.current) {
        if (!next.nodes.has(nodeId)) continue;
        const page = await request(ExpandDocument, { nodeId, direction: side, first: PAGE_SIZE, ...vars }, controller.signal);
        next = placeNewNodes(addPage(next, side, page.expand), columnCounts(next));
      }
      if (controller.signal.aborted) return;
      setLoaded({ key: queryKey, model: next, layoutNonce: 0 });
      if (!serverLaid && next.nodes.size > 1) {
        const positions = await refineWithElk(next);
        if (controller.signal.aborted) return;
        setLoaded((current) => {
          if (!current || current.key !== queryKey) return current;
          const nodes = new Map(current.model.nodes);
          for (const [id, position] of positions) {
            const node = nodes.get(id);
            // ELK orders each lane; x stays the lanes' own (align-lanes.ts).
            if (node) nodes.set(id, { ...node, position: { x: 0, y: position.y } });
          }
          return { ...current, model: alignLanes({ ...current.model, nodes }, columnCounts(current.model)), layoutNonce: current.layoutNonce + 1 };
        });
      }
    })().catch((e) => {
      if (!controller.signal.aborted) setError(asApiError(e));
    });
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [queryKey, reloadNonce]);

  const setModel = useCallback((change: (m: GraphModel) => GraphModel) => setLoaded((l) => (l && l.key === queryKey ? { ...l, model: change(l.model) } : l)), [queryKey]);

  const fetchPage = useCallback(
    async (nodeId: string, side: Side, first: number, after?: string | null) => {
      setBusy(`Expanding ${side.toLowerCase()}…`);
      try {
        const page = await request(ExpandDocument, { nodeId, direction: side, first, after: after ?? null, ...vars });
        setModel((m) => placeNewNodes(addPage(m, side, page.expand), columnCounts(m)));
        if (!after && !openRef.current.some((o) => o.nodeId === nodeId && o.side === side)) {
          updateParams({ open: openParamOf([...openRef.current, { nodeId, side }]) }, { replace: true });
        }
      } catch (e) {
        setError(asApiError(e));
      } finally {
        setBusy(undefined);
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [setModel, queryKey],
  );

  const actions: GraphActions = useMemo(
    () => ({
      expand: (nodeId, side) => {
        const m = modelRef.current;
        const node = m?.nodes.get(nodeId);
        if (!m || !node) return;
        const hidden = side === "UPSTREAM" ? node.hiddenUpstream : node.hiddenDownstream;
        const expansion = m.expansions.find((e) => e.nodeId === nodeId && e.side === side);
        if (expansion?.hasNextPage) return void fetchPage(nodeId, side, PAGE_SIZE, expansion.endCursor);
        if (hidden > WARN_AT) return setWarning({ nodeId, side, count: hidden });
        void fetchPage(nodeId, side, Math.max(PAGE_SIZE, hidden));
      },
      collapse: (nodeId, side) => {
        setModel((m) => collapse(m, nodeId, side));
        updateParams({ open: openParamOf(openRef.current.filter((o) => !(o.nodeId === nodeId && o.side === side))) }, { replace: true });
      },
      showColumns: (nodeId) => updateParams({ cols: true, sel: nodeId }),
    }),
    [fetchPage, setModel],
  );

  // Paths between two chosen nodes, shortest first; nodes of a path not on screen are fetched and added.
  useEffect(() => {
    setPaths(undefined);
    if (!settings.pathFrom || !settings.pathTo || !model) return;
    const controller = new AbortController();
    request(LineagePathDocument, { from: settings.pathFrom, to: settings.pathTo, maxPaths: 10, asOf: settings.asOf ?? null }, controller.signal)
      .then(async (data) => {
        setPaths(data.lineagePath);
        const missing = [...new Set(data.lineagePath.paths.flatMap((p) => p.nodeIds))].filter((id) => !modelRef.current?.nodes.has(id));
        if (!missing.length) return;
        const extra = await request(LineageGraphDocument, { roots: missing, depth: 0, first: FIRST, ...vars }, controller.signal);
        const edges = data.lineagePath.paths.flatMap((p) => p.edges);
        setModel((m) => {
          const columnOf = (n: { id: string }) => {
            const index = data.lineagePath.paths.find((p) => p.nodeIds.includes(n.id))!;
            const at = index.nodeIds.indexOf(n.id);
            const anchor = index.nodeIds.slice(0, at).reverse().find((id) => m.nodes.has(id));
            // A path steps from artifact to artifact: two lanes (the run between them has one of its own).
            return (anchor ? m.nodes.get(anchor)!.lane : 0) + 2 * (anchor ? at - index.nodeIds.indexOf(anchor) : at);
          };
          const merged = mergeGraph(m, { nodes: extra.lineageGraph.nodes, edges: [...extra.lineageGraph.edges, ...edges.map(asGraphEdge)] }, columnOf);
          return placeNewNodes(merged, columnCounts(merged));
        });
      })
      .catch((e) => !controller.signal.aborted && setError(asApiError(e)));
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settings.pathFrom, settings.pathTo, settings.asOf, !!model]);

  // Runs recorded live that touch what is shown: added, and highlighted for a few seconds.
  const { listen } = useLiveFeed();
  useEffect(
    () =>
      listen((event) => {
        const m = modelRef.current;
        if (!m || settings.asOf) return;
        const touched = [...event.execution.inputs, ...event.execution.outputs].some((link) => m.nodes.has(link.artifact.id)) || m.nodes.has(event.execution.runId);
        if (!touched) return;
        request(LineageGraphDocument, { roots: [event.execution.runId], direction: "BOTH", depth: 1, first: FIRST, ...vars })
          .then((data) => {
            const arrived = new Set(data.lineageGraph.nodes.map((n) => n.id).filter((id) => !modelRef.current?.nodes.has(id)));
            setModel((current) => {
              const run = data.lineageGraph.nodes.find((n) => n.id === event.execution.runId);
              const input = event.execution.inputs.map((l) => current.nodes.get(l.artifact.id)).find(Boolean);
              const output = event.execution.outputs.map((l) => current.nodes.get(l.artifact.id)).find(Boolean);
              const runColumn = run && current.nodes.has(run.id) ? current.nodes.get(run.id)!.lane : input ? input.lane + 1 : output ? output.lane - 1 : 1;
              const columnOf = (n: { id: string; depth: number }) => runColumn + n.depth;
              const merged = mergeGraph(current, data.lineageGraph, columnOf);
              return placeNewNodes(merged, columnCounts(merged));
            });
            setFresh(arrived);
            setTimeout(() => setFresh(new Set()), 4000);
          })
          .catch(() => undefined);
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [listen, queryKey],
  );

  const highlights: Highlights = useMemo(() => {
    if (paths?.paths.length && model) return { selected: settings.selected, ...pathHighlights(model, paths.paths), fresh };
    const selected = settings.selected ? model?.nodes.get(settings.selected) : undefined;
    if (selected?.kind === "COLUMN" && model) {
      return { selected: selected.id, litNodes: reachable(model, selected.id, new Set(["COLUMN_DIRECT", "COLUMN_INDIRECT"])), fresh };
    }
    return { selected: settings.selected, fresh };
  }, [paths, settings.selected, model, fresh]);

  // Stable, so the canvas (memoised) does not render again when only the toolbar or the panel changes.
  const selectedRef = useRef(settings.selected);
  selectedRef.current = settings.selected;
  const onSelect = useCallback((nodeId: string | undefined, event?: { shiftKey: boolean }) => {
    const selected = selectedRef.current;
    if (nodeId && event?.shiftKey && selected && selected !== nodeId) {
      // Shift+click (Shift+Enter on a focused node): the derivation paths from the selected node to this one.
      updateParams({ from: selected, to: nodeId });
      return;
    }
    updateParams({ sel: nodeId }, { replace: true });
  }, []);

  // Keyboard: arrows walk to neighbours, e/E expand down/upstream, c collapses, Esc clears.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      // While the paging warning is open it has the keyboard (its Esc is its own), wherever the focus is.
      if (/^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || !model || warning) return;
      const selected = settings.selected ?? model.roots[0];
      if (event.key === "Escape") {
        updateParams({ sel: undefined, from: undefined, to: undefined });
        return;
      }
      if (!selected || !model.nodes.has(selected)) return;
      const move = (side: Side) => {
        const next = neighbours(model, selected, side)[0];
        if (next) updateParams({ sel: next }, { replace: true });
      };
      if (event.key === "ArrowLeft") move("UPSTREAM");
      else if (event.key === "ArrowRight") move("DOWNSTREAM");
      else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
        const lane = model.nodes.get(selected)!.lane;
        const same = [...model.nodes.values()].filter((n) => n.lane === lane && n.kind !== "COLUMN" && n.position).sort((a, b) => a.position!.y - b.position!.y);
        const at = same.findIndex((n) => n.id === selected);
        const next = same[at + (event.key === "ArrowUp" ? -1 : 1)];
        if (next) updateParams({ sel: next.id }, { replace: true });
      } else if (event.key === "e") actions.expand(selected, "DOWNSTREAM");
      else if (event.key === "E") actions.expand(selected, "UPSTREAM");
      else if (event.key === "c") {
        actions.collapse(selected, "DOWNSTREAM");
        actions.collapse(selected, "UPSTREAM");
      } else return;
      event.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [model, settings.selected, actions, warning]);

  const change = (changes: Partial<GraphSettings>) =>
    updateParams({
      dir: changes.direction === undefined ? undefined : changes.direction === "BOTH" ? null : changes.direction,
      depth: changes.depth === undefined ? undefined : changes.depth === 1 ? null : changes.depth,
      steps: changes.stepBoundaryOnly,
      cols: changes.columns,
      ...("asOf" in changes ? { asOf: changes.asOf ?? null } : {}),
      max: changes.maxNodes === undefined ? undefined : changes.maxNodes === DEFAULT_MAX_NODES ? null : changes.maxNodes,
      open: null,
    });

  const asOfStops = useMemo(() => {
    const times: string[] = [];
    for (const node of model?.nodes.values() ?? []) if (node.execution?.recordedAt) times.push(node.execution.recordedAt);
    else if (node.artifact?.createdAt && node.kind === "ARTIFACT") times.push(node.artifact.createdAt);
    return times;
  }, [model]);

  const subject = titleOf(settings.roots, model);
  useDocumentTitle(subject);

  if (!settings.roots.length) return <Empty heading title="No node chosen">Search for something to open its neighbourhood.</Empty>;
  const selectedNode = settings.selected ? model?.nodes.get(settings.selected) : undefined;
  return (
    <GraphActionsContext.Provider value={actions}>
      <div className="graph-view">
        {/* The page's heading, for screen readers: the graph itself says what it is around. */}
        <h1 className="sr-only">{subject ? `Lineage around ${subject}` : "Lineage graph"}</h1>
        <GraphToolbar
          settings={settings}
          asOfStops={asOfStops}
          onChange={change}
          info={
            model && (
              <span data-testid="graph-info">
                {countOf(model, "ARTIFACT")} artifacts · {countOf(model, "RUN")} runs{settings.columns || countOf(model, "COLUMN") ? ` · ${countOf(model, "COLUMN")} columns` : ""}
                {model.truncated && <span className="warn"> · cut at {settings.maxNodes} nodes: expand to see more</span>}
                {busy && <span className="busy"> · {busy}</span>}
              </span>
            )
          }
        />
        {paths && (
          <div className="pathbar" role="status" data-testid="path-status">
            {paths.paths.length ? `${paths.paths.length} derivation path${paths.paths.length === 1 ? "" : "s"} (shortest: ${Math.min(...paths.paths.map((p) => p.length))} hops)` : "No derivation path between these two nodes."}
            {paths.truncated && " — more exist"}
            <button className="button small" onClick={() => updateParams({ from: undefined, to: undefined })}>
              Clear path
            </button>
          </div>
        )}
        {error && <ErrorNotice error={error} onRetry={() => (setError(undefined), setReloadNonce((n) => n + 1))} />}
        <div className="graph-body">
          {model ? (
            model.nodes.size === 0 ? (
              <Empty title="Nothing here at this instant">{settings.asOf ? "Nothing of this neighbourhood was recorded by the as-of time." : "The server returned an empty neighbourhood."}</Empty>
            ) : (
              <GraphCanvas model={model} highlights={highlights} onSelect={onSelect} fitKey={`${queryKey}|${loaded?.layoutNonce}`} />
            )
          ) : (
            !error && <Loading what="the neighbourhood" />
          )}
          {selectedNode && model && (
            <DetailsPanel
              node={selectedNode}
              asOf={settings.asOf}
              pathFrom={settings.pathFrom}
              onClose={() => updateParams({ sel: undefined }, { replace: true })}
            />
          )}
        </div>
        {warning && (
          <PagingWarning
            count={warning.count}
            side={warning.side.toLowerCase()}
            pageSize={PAGE_SIZE}
            onCancel={() => setWarning(undefined)}
            onPage={() => {
              setWarning(undefined);
              void fetchPage(warning.nodeId, warning.side, PAGE_SIZE);
            }}
            onAll={() => {
              setWarning(undefined);
              void fetchPage(warning.nodeId, warning.side, warning.count);
            }}
          />
        )}
      </div>
    </GraphActionsContext.Provider>
  );
}

/**
 * A path's nodes and edges as drawn: a derivation edge a → b of the path lights the run that made it
 * too, with its used and generated edges, when that run is on screen.
 */
function pathHighlights(model: GraphModel, paths: LineagePathQuery["lineagePath"]["paths"]): { litNodes: Set<string>; litEdges: Set<string> } {
  const litNodes = new Set<string>();
  const litEdges = new Set<string>();
  const into = new Map<string, string[]>();
  for (const edge of model.edges.values()) (into.get(edge.target) ?? into.set(edge.target, []).get(edge.target)!).push(edge.id);
  for (const path of paths) {
    path.nodeIds.forEach((id) => litNodes.add(id));
    for (const step of path.edges) {
      // Matched by their ends: an edge id is only unique within one answer.
      for (const edge of model.edges.values()) if (edge.source === step.source && edge.target === step.target) litEdges.add(edge.id);
      // source → run → target: the run that made this derivation.
      for (const generatedId of into.get(step.target) ?? []) {
        const generated = model.edges.get(generatedId)!;
        if (generated.kind !== "GENERATED") continue;
        const used = [...model.edges.values()].find((e) => e.kind === "USED" && e.source === step.source && e.target === generated.source);
        if (!used) continue;
        litNodes.add(generated.source);
        litEdges.add(used.id).add(generated.id);
      }
    }
  }
  return { litNodes, litEdges };
}

/** What the tab is called: the root's name (a run's operation, a column marked as one), or how many roots. */
function titleOf(roots: readonly string[], model: GraphModel | undefined): string | undefined {
  if (roots.length > 1) return `${roots.length} nodes`;
  const root = roots.length ? model?.nodes.get(roots[0]) : undefined;
  if (!root) return undefined;
  if (root.kind === "RUN") return `${root.execution?.operation.name ?? root.label} (run)`;
  return root.kind === "COLUMN" ? `${root.label} (column)` : root.label;
}

function countOf(model: GraphModel, kind: string): number {
  let n = 0;
  for (const node of model.nodes.values()) if (node.kind === kind) n++;
  return n;
}

function asGraphEdge(edge: LineagePathQuery["lineagePath"]["paths"][number]["edges"][number]) {
  return { ...edge, id: `path:${edge.source}>${edge.target}`, runId: null, role: null, groupId: null, derivationKind: null, subtype: null, masking: null, backward: false };
}
