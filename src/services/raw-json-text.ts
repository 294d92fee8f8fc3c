/**
 * A JSON value kept as its text, not parsed: a filed evidence document given to verifyEvidence
 * (megabytes) goes to a heavy-read thread as text, and is parsed there, so the event loop neither
 * builds its tree nor clones it to the thread (docs: "Limits and budgets"). Only a field that
 * reads it as such is handed one (see src/http/raw-json-variables.ts); its text was checked to be
 * JSON, and within the JSON scalar's depth limit, before the request runs.
 */
export class RawJsonText {
  constructor(readonly text: string) {}
}

/** A document as a thread is handed it: the value itself, or its text (a RawJsonText's), parsed there. */
export interface DocumentOrText {
  document?: unknown;
  documentText?: string;
}

export function documentOrText(value: unknown): DocumentOrText {
  return value instanceof RawJsonText ? { documentText: value.text } : { document: value };
}

/** The document, parsed from its text when it came as text. */
export function documentOf(given: DocumentOrText): unknown {
  return given.documentText !== undefined ? JSON.parse(given.documentText) : given.document;
}
