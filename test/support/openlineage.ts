import fs from "node:fs";
import path from "node:path";
import { createHash, randomUUID } from "node:crypto";
import type { TestApp } from "./test-app";

/** Helpers for OpenLineage tests: posting to the routes in-process, building events, reading the shared fixtures. */

export const FIXTURES = path.resolve(__dirname, "../fixtures/openlineage/events");
export const PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.30.0/client/python";
export const RUN_EVENT_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent";

export interface PostAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** POSTs a body to an OpenLineage route through yoga.fetch. */
export async function postLineage(t: TestApp, body: string | Uint8Array, headers: Record<string, string> = { "content-type": "application/json" }, route = "/api/v1/lineage"): Promise<PostAnswer> {
  const response = await t.app.yoga.fetch(`http://provgraph.test${route}`, { method: "POST", headers, body });
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: the test says what it expects
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const postEvent = (t: TestApp, event: unknown) => postLineage(t, JSON.stringify(event));

/** A RunEvent with the base fields filled; `overrides` replace top-level fields. */
export function runEvent(overrides: Record<string, unknown> & { runId?: string } = {}): Record<string, any> {
  const { runId = randomUUID(), ...rest } = overrides;
  return {
    eventType: "COMPLETE",
    eventTime: "2026-03-11T02:14:07.318Z",
    producer: PRODUCER,
    schemaURL: RUN_EVENT_SCHEMA,
    run: { runId, facets: {} },
    job: { namespace: "tests", name: "job" },
    inputs: [],
    outputs: [],
    ...rest,
  };
}

export const dataset = (namespace: string, name: string, facets: Record<string, unknown> = {}) => ({ namespace, name, facets });

/** The shared fixture files, each as its events (a file may hold an array). */
export function fixtureFiles(): { file: string; events: Record<string, any>[] }[] {
  return fs
    .readdirSync(FIXTURES)
    .sort()
    .map((file) => {
      const value = JSON.parse(substitutePlaceholders(fs.readFileSync(path.join(FIXTURES, file), "utf8"), file));
      return { file, events: Array.isArray(value) ? value : [value] };
    });
}

/**
 * The fixtures' README: placeholders stand for "any value" in OpenLineage's own expected-event
 * templates. Each is replaced by a plain value of its kind: a runId by a UUID (one per placeholder:
 * the templates do not say which events share a run), a datetime by a fixed instant, a number by 1,
 * a string by "any", a regex by a string it matches.
 */
export function substitutePlaceholders(text: string, seed: string): string {
  let n = 0;
  const uuid = () => {
    // Deterministic per file and position, so reruns give the same ids (shaped as a v4 UUID).
    const hex = createHash("sha256").update(`${seed}#${n++}`).digest("hex");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
  return text
    .replace(/"(runId)"(\s*:\s*)"(?:\{\{ any\(result\) \}\}|\$\{json-unit\.any-string\})"/g, (_m, key, sep) => `"${key}"${sep}"${uuid()}"`)
    .replace(/"(eventTime|creationTime)"(\s*:\s*)"(?:\{\{ (?:any|is_datetime)\(result\) \}\}|\$\{json-unit\.any-string\})"/g, (_m, key, sep) => `"${key}"${sep}"2026-03-11T02:14:07.318Z"`)
    .replace(/"(_producer)"(\s*:\s*)"\{\{ any\(result\) \}\}"/g, (_m, key, sep) => `"${key}"${sep}"${PRODUCER}"`)
    .replace(/"\{\{ is_datetime\(result\) \}\}"/g, '"2026-03-11T02:14:07.318Z"')
    .replace(/"\$\{json-unit\.any-number\}"/g, "1")
    .replace(/"\{\{ any\(result\) \}\}"/g, '"any"')
    .replace(/"\$\{json-unit\.any-string\}"/g, '"any"')
    .replace(/"\$\{json-unit\.regex\}([^"]*)"/g, (_m, pattern: string) => `"${exampleOf(pattern)}"`);
}

/** A string matching the simple patterns the templates use (\\d{1,3}, \\d+, \\., .*, literal text). */
function exampleOf(pattern: string): string {
  return pattern
    .replace(/\\\\d\{\d+,\d+\}/g, "1")
    .replace(/\\\\d\+/g, "1")
    .replace(/\\\\d/g, "1")
    .replace(/\\\\\./g, ".")
    .replace(/\.\*/g, "x")
    .replace(/\\\\/g, "");
}

/** Fills what the fixtures' README says the templates lack: producer, eventTime, schemaURL (said so in the test). */
export function withBaseFields(event: Record<string, any>): Record<string, any> {
  return { ...event, producer: event.producer ?? PRODUCER, eventTime: event.eventTime ?? "2026-03-11T02:14:07.318Z", schemaURL: event.schemaURL ?? RUN_EVENT_SCHEMA };
}
