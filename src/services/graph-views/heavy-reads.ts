import type { HeavyReadContext, HeavyReadJobs } from "../heavy-reads";
import { GraphViews, type GraphViewOptions } from "./graph-views";
import { DEFAULT_JOB_RUNS, type JobName } from "./job-steps";
import type { MacroGraph, MicroGraph } from "./layered-graph";

/** A pipeline by name, or an OpenLineage job over its latest `runs` runs (default DEFAULT_JOB_RUNS). */
type GraphOf = ({ pipeline: string } | { job: JobName }) & { runs?: number };

const graphViewsOver = (database: HeavyReadContext["database"]) => new GraphViews(database.reader);

/**
 * The graph views as heavy reads (run off the event loop, src/services/heavy-reads): laying out
 * thousands of nodes (and writing their DOT text) takes seconds. A graph of more than
 * RESULT_MAX_NODES nodes is RESULT_TOO_LARGE, refused before it is laid out.
 */
export const graphViewReads = {
  macroGraph: (args: GraphOf & { options: GraphViewOptions }, ctx: HeavyReadContext): Promise<MacroGraph> => {
    const options = { ...args.options, maxNodes: ctx.maxResultNodes };
    const views = ctx.use(graphViewsOver);
    return "job" in args ? views.macroGraphOfJob(args.job, args.runs ?? DEFAULT_JOB_RUNS, options) : views.macroGraph(args.pipeline, options);
  },
  microGraph: (args: GraphOf & { upToStep: number | null; options: GraphViewOptions }, ctx: HeavyReadContext): Promise<MicroGraph> => {
    const options = { ...args.options, maxNodes: ctx.maxResultNodes };
    const views = ctx.use(graphViewsOver);
    return "job" in args ? views.microGraphOfJob(args.job, args.runs ?? DEFAULT_JOB_RUNS, args.upToStep, options) : views.microGraph(args.pipeline, args.upToStep, options);
  },
} satisfies HeavyReadJobs;
