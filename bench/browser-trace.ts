/**
 * Where a browser's time goes while the page does one thing: a Chromium performance trace (CDP Tracing,
 * the DevTools timeline categories) summed by self time into scripting, style and layout, paint,
 * compositing and rasterisation, per thread family. The explorer bench prints one for each of its figures
 * when PROVGRAPH_BENCH_TRACE=1, so a missed goal says what to cut.
 */
import type { Page } from "playwright-core";

export interface TraceBreakdown {
  /** Wall time of the traced action. */
  wallMs: number;
  /** Self time on the page's main thread, by kind of work. */
  main: Record<Bucket, number>;
  /** Self time on the compositor and raster threads. */
  compositorMs: number;
  rasterMs: number;
  /** Self time in the page's web workers (ELK's layout). */
  workerMs: number;
  /** The main thread's longest tasks. */
  longestTasksMs: number[];
  /** The main thread's self time by trace event name, most first. */
  topEvents: [string, number][];
}

type Bucket = "scripting" | "gc" | "style" | "layout" | "paint" | "composite" | "parse" | "other";

const BUCKETS: [RegExp, Bucket][] = [
  [/^(MinorGC|MajorGC|V8\.GC|BlinkGC|ThreadState::|CppGC)/, "gc"],
  [/^(FunctionCall|EvaluateScript|v8\.|V8\.|TimerFire|FireAnimationFrame|EventDispatch|RunMicrotasks|FireIdleCallback|XHRReadyStateChange|v8::|CompileScript|CompileCode)/, "scripting"],
  [/^(UpdateLayoutTree|RecalculateStyles|ScheduleStyleRecalculation|ParseAuthorStyleSheet)/, "style"],
  [/^(Layout|InvalidateLayout|HitTest|IntersectionObserverController|ResizeObserver|UpdateLayerTree)/, "layout"],
  [/^(Paint|PrePaint|PaintImage|Layerize|UpdateLayer|PaintSetup|Decode)/, "paint"],
  [/^(Commit|CompositeLayers|ProxyMain|BeginMainThreadFrame|ActivateLayerTree)/, "composite"],
  [/^(ParseHTML|ParseStyleSheet)/, "parse"],
];

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

const CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute", "blink", "cc", "gpu", "toplevel", "disabled-by-default-v8.gc"];

export async function traced<T>(page: Page, action: () => Promise<T>): Promise<{ result: T; breakdown: TraceBreakdown }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Tracing.start", { transferMode: "ReturnAsStream", traceConfig: { includedCategories: CATEGORIES } });
  const started = performance.now();
  const result = await action();
  const wallMs = performance.now() - started;
  const done = new Promise<string>((resolve) => cdp.once("Tracing.tracingComplete", (event) => resolve(event.stream!)));
  await cdp.send("Tracing.end");
  const stream = await done;
  let text = "";
  for (;;) {
    const chunk = await cdp.send("IO.read", { handle: stream });
    text += chunk.base64Encoded ? Buffer.from(chunk.data, "base64").toString("utf8") : chunk.data;
    if (chunk.eof) break;
  }
  await cdp.send("IO.close", { handle: stream });
  await cdp.detach();
  const parsed = JSON.parse(text) as { traceEvents: TraceEvent[] } | TraceEvent[];
  return { result, breakdown: summarise(Array.isArray(parsed) ? parsed : parsed.traceEvents, wallMs) };
}

function summarise(events: TraceEvent[], wallMs: number): TraceBreakdown {
  const threadNames = new Map<string, string>();
  for (const e of events) if (e.ph === "M" && e.name === "thread_name") threadNames.set(`${e.pid}:${e.tid}`, e.args?.name ?? "");
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    if (e.ph !== "X" || e.dur == null) continue;
    const key = `${e.pid}:${e.tid}`;
    (byThread.get(key) ?? byThread.set(key, []).get(key)!).push(e);
  }
  const main = { scripting: 0, gc: 0, style: 0, layout: 0, paint: 0, composite: 0, parse: 0, other: 0 } as Record<Bucket, number>;
  let compositorMs = 0;
  let rasterMs = 0;
  let workerMs = 0;
  const longest: number[] = [];
  const others = new Map<string, number>();
  for (const [key, list] of byThread) {
    const thread = threadNames.get(key) ?? "";
    list.sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
    // Self time: an event's duration less its direct children's.
    const stack: { end: number; event: TraceEvent; self: number }[] = [];
    const selfOf: { event: TraceEvent; self: number }[] = [];
    for (const event of list) {
      while (stack.length && stack.at(-1)!.end <= event.ts) selfOf.push(stack.pop()!);
      if (stack.length) stack.at(-1)!.self -= event.dur!;
      stack.push({ end: event.ts + event.dur!, event, self: event.dur! });
    }
    selfOf.push(...stack);
    for (const { event, self } of selfOf) {
      const ms = Math.max(0, self) / 1000;
      if (thread === "CrRendererMain") {
        if (event.name === "RunTask" && event.dur! > 0) longest.push(event.dur! / 1000);
        const bucket = BUCKETS.find(([pattern]) => pattern.test(event.name))?.[1] ?? "other";
        main[bucket] += ms;
        others.set(event.name, (others.get(event.name) ?? 0) + ms);
      } else if (thread === "Compositor") compositorMs += ms;
      else if (/Raster|CompositorTileWorker/.test(thread)) rasterMs += ms;
      else if (/DedicatedWorker/.test(thread)) workerMs += ms;
    }
  }
  const round = (n: number) => Math.round(n * 10) / 10;
  for (const bucket of Object.keys(main) as Bucket[]) main[bucket] = round(main[bucket]);
  return {
    wallMs: round(wallMs),
    main,
    compositorMs: round(compositorMs),
    rasterMs: round(rasterMs),
    workerMs: round(workerMs),
    longestTasksMs: longest.sort((a, b) => b - a).slice(0, 5).map(round),
    topEvents: [...others].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([name, ms]) => [name, round(ms)]),
  };
}

/** The page's JavaScript while it does one thing: a CPU profile (CDP Profiler) summed by self time per function. */
export async function profiled<T>(page: Page, action: () => Promise<T>, top = 25): Promise<{ result: T; functions: { fn: string; selfMs: number }[] }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 500 });
  await cdp.send("Profiler.start");
  const result = await action();
  const { profile } = await cdp.send("Profiler.stop");
  await cdp.detach();
  const interval = new Map<number, number>();
  const deltas = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((id, i) => interval.set(id, (interval.get(id) ?? 0) + (deltas[i + 1] ?? 0) / 1000));
  const byFunction = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || "(anonymous)"} ${url.split("/").pop()}:${lineNumber}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + (interval.get(node.id) ?? 0));
  }
  const functions = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top).map(([fn, ms]) => ({ fn, selfMs: Math.round(ms) }));
  return { result, functions };
}
