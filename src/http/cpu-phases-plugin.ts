import type http from "node:http";
import type { Plugin } from "graphql-yoga";
import { cpuPhasesEnabled, markCpuPhase } from "../cpu-phases";

/**
 * The CPU budget's marks on the request path (src/cpu-phases.ts; only when PROVGRAPH_CPU_PHASES=1).
 * `before` goes first in Yoga's plugin list: its onRequest starts the access checks ("scope"); the
 * body is read after every onRequest ("http"), then parse, validate, the context and the checks that
 * run before execution ("scope"). `last` goes last: its onExecute is the last thing before graphql-js
 * runs ("coercion", until the core marks its own), and what follows execution is the answer.
 */
export function cpuPhasePlugins(): { before: Plugin[]; last: Plugin[] } {
  if (!cpuPhasesEnabled) return { before: [], last: [] };
  const before: Plugin = {
    onRequest() {
      markCpuPhase("scope");
    },
    onRequestParse() {
      markCpuPhase("http");
    },
    onParse() {
      markCpuPhase("parse");
      return () => void markCpuPhase("scope");
    },
    onValidate() {
      markCpuPhase("validate");
      return () => void markCpuPhase("scope");
    },
    onContextBuilding() {
      markCpuPhase("scope");
    },
  };
  const last: Plugin = {
    onExecute() {
      markCpuPhase("coercion");
      return { onExecuteDone: () => void markCpuPhase("response") };
    },
  };
  return { before: [before], last: [last] };
}

/** The HTTP server's handler, its requests marked from their first byte ("http") to the response's last ("idle"). */
export function markedRequests(handler: http.RequestListener): http.RequestListener {
  if (!cpuPhasesEnabled) return handler;
  return (request, response) => {
    markCpuPhase("http");
    response.once("finish", () => void markCpuPhase("idle"));
    return handler(request, response);
  };
}
