import { jsonDepthExceeds } from "../../limits/json-depth";
import type { HeavyReadJobs } from "./heavy-read-job";

/**
 * A JSON text checked off the event loop: whether it parses, and whether it nests deeper than
 * `maxDepth` — what a request's big JSON variable kept as text (RawJsonText) is checked for before
 * the request runs, as JSON.parse and the JSON scalar would have checked it.
 */
export const jsonTextReads = {
  checkJsonText: async (args: { text: string; maxDepth: number }): Promise<{ valid: boolean; tooDeep: boolean }> => {
    let value: unknown;
    try {
      value = JSON.parse(args.text);
    } catch {
      return { valid: false, tooDeep: false };
    }
    return { valid: true, tooDeep: jsonDepthExceeds(value, args.maxDepth) };
  },
} satisfies HeavyReadJobs;
