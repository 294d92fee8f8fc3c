import { type DocumentNode, Kind, type OperationDefinitionNode, parse, type TypeNode, visit } from "graphql";
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from "../limits/json-nesting";

/** A root field's argument whose resolver takes a big JSON value as its text (RawJsonText): e.g. verifyEvidence's `document`. */
export interface RawJsonArgument {
  field: string;
  argument: string;
}

/** A request body with its big JSON variables cut out: `body` is the rest, parsed; `raw` their texts, by variable. */
export interface SplitBody {
  body: Record<string, unknown>;
  raw: Map<string, string>;
}

/**
 * Splits a GraphQL request body (its JSON text) into its parsed parameters and the texts of the
 * variables that are kept as text: a variable of type JSON whose value is at least `minChars`
 * long, used only as one of `rawArguments` of a root field of the query. Everything else is
 * parsed with JSON.parse, as before (the cut-out values stand as null meanwhile), so the body
 * means what it meant. Null when nothing is kept as text, or the body is not as expected
 * (the caller parses it whole, and refuses it as before).
 *
 * The cut is found by a scan of the text that only skips over strings and brackets; whether
 * the value cut out is JSON is for the caller to check (a heavy-read thread parses it).
 */
export function splitRawJsonVariables(text: string, rawArguments: readonly RawJsonArgument[], minChars: number): SplitBody | null {
  const top = membersOf(text, skipWhitespace(text, 0));
  if (!top || skipWhitespace(text, top.end) !== text.length || hasDuplicates(top.members)) return null;
  const variables = top.members.find((m) => m.key === "variables");
  const query = top.members.find((m) => m.key === "query");
  if (!variables || !query || text.charCodeAt(variables.start) !== OPEN_BRACE || text.charCodeAt(query.start) !== QUOTE) return null;
  const inner = membersOf(text, variables.start);
  if (!inner || hasDuplicates(inner.members)) return null;
  const big = inner.members.filter((m) => m.end - m.start >= minChars && (text.charCodeAt(m.start) === OPEN_BRACE || text.charCodeAt(m.start) === OPEN_BRACKET));
  if (big.length === 0) return null;
  const operationName = top.members.find((m) => m.key === "operationName");
  let eligible: Set<string>;
  try {
    const name = operationName ? (JSON.parse(text.slice(operationName.start, operationName.end)) as unknown) : null;
    eligible = rawVariables(parse(JSON.parse(text.slice(query.start, query.end)) as string), typeof name === "string" ? name : null, rawArguments);
  } catch {
    return null;
  }
  const cut = big.filter((m) => eligible.has(m.key));
  if (cut.length === 0) return null;
  let rest = "";
  let at = 0;
  for (const member of cut) {
    rest += `${text.slice(at, member.start)}null`;
    at = member.end;
  }
  rest += text.slice(at);
  let body: unknown;
  try {
    body = JSON.parse(rest);
  } catch {
    return null;
  }
  return { body: body as Record<string, unknown>, raw: new Map(cut.map((m) => [m.key, text.slice(m.start, m.end)])) };
}

/**
 * The variables of the operation that may be kept as text: declared JSON (or JSON!), and every
 * use of them an argument of `rawArguments` on a root field of a query (no fragment, no other field).
 */
function rawVariables(document: DocumentNode, operationName: string | null, rawArguments: readonly RawJsonArgument[]): Set<string> {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName === null ? (operations.length === 1 ? operations[0] : undefined) : operations.find((o) => o.name?.value === operationName);
  if (!operation || operation.operation !== "query") return new Set();
  const declared = new Set((operation.variableDefinitions ?? []).filter((d) => isJsonType(d.type)).map((d) => d.variable.name.value));
  const allowed = new Map<string, number>();
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue;
    for (const argument of selection.arguments ?? []) {
      if (argument.value.kind !== Kind.VARIABLE || !rawArguments.some((r) => r.field === selection.name.value && r.argument === argument.name.value)) continue;
      allowed.set(argument.value.name.value, (allowed.get(argument.value.name.value) ?? 0) + 1);
    }
  }
  // Its uses: in the operation, and in any fragment (one it spreads may use it).
  const used = new Map<string, number>();
  for (const definition of document.definitions) {
    if (definition !== operation && definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
    visit(definition, {
      VariableDefinition: () => false,
      Variable: (node) => {
        used.set(node.name.value, (used.get(node.name.value) ?? 0) + 1);
      },
    });
  }
  return new Set([...declared].filter((name) => allowed.has(name) && allowed.get(name) === used.get(name)));
}

function isJsonType(type: TypeNode): boolean {
  const named = type.kind === Kind.NON_NULL_TYPE ? type.type : type;
  return named.kind === Kind.NAMED_TYPE && named.name.value === "JSON";
}

function hasDuplicates(members: readonly Member[]): boolean {
  return new Set(members.map((m) => m.key)).size !== members.length;
}

interface Member {
  key: string;
  /** Where its value starts and ends (exclusive) in the text. */
  start: number;
  end: number;
}

const COMMA = 0x2c;
const COLON = 0x3a;

/** The members of the object at `at` (its keys parsed, its values skipped over), and where it ends; null if it is not one. */
function membersOf(text: string, at: number): { members: Member[]; end: number } | null {
  if (text.charCodeAt(at) !== OPEN_BRACE) return null;
  const members: Member[] = [];
  let i = skipWhitespace(text, at + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) return { members, end: i + 1 };
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return null;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0) return null;
    let key: string;
    try {
      key = JSON.parse(text.slice(i, keyEnd)) as string;
    } catch {
      return null;
    }
    i = skipWhitespace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return null;
    const start = skipWhitespace(text, i + 1);
    const end = skipValue(text, start);
    if (end < 0) return null;
    members.push({ key, start, end });
    i = skipWhitespace(text, end);
    const next = text.charCodeAt(i);
    if (next === CLOSE_BRACE) return { members, end: i + 1 };
    if (next !== COMMA) return null;
    i = skipWhitespace(text, i + 1);
  }
}

function skipWhitespace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** Past the string starting at `at` (a quote), or -1. */
function skipString(text: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Past the value starting at `at`, or -1: strings and brackets are matched, nothing else is checked. */
function skipValue(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return skipString(text, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    let i = at;
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c) || c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) return i === at ? -1 : i;
      i++;
    }
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = skipString(text, i);
      if (end < 0) return -1;
      i = end - 1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
