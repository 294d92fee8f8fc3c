import { type ASTNode, type GraphQLError, getNamedType, type GraphQLSchema, isInputObjectType, parse, type Source, TypeInfo, visit, visitWithTypeInfo } from "graphql";
import { isSensitive } from "../schema/sensitive";

const INVALID_VARIABLE = /^Variable "\$[_A-Za-z][_0-9A-Za-z]*" got invalid value /;
const QUOTED = /"(?:[^"\\]|\\.)*"/g;
/** What a syntax error may quote that is never a value: a punctuator (Expected ":", found …). */
const PUNCTUATOR = /^"(?:[!$&():=@[\]{|}]|\.\.\.)"$/;

/**
 * A client error's message as the log keeps it: never a value the caller sent that may be a
 * secret of theirs (a data-subject key: src/services/compliance/subject-keys.ts). The caller still
 * reads the whole message in the answer.
 * - Variable coercion errors echo the value given (and their reason may quote it again): the log
 *   keeps the variable and the path only, whatever the variable.
 * - Syntax errors quote the token they stopped at, which may be anything: the log keeps the
 *   message with quoted text left out, and where.
 * - Any other error located inside a sensitive argument or input field (`extensions: SENSITIVE`,
 *   src/schema/sensitive.ts), at any depth of a literal: the log names the argument and the code.
 */
export function loggableMessage(error: GraphQLError, schema: GraphQLSchema | undefined): string {
  const message = error.message;
  if (INVALID_VARIABLE.test(message)) {
    const variable = message.slice(0, message.indexOf('" got invalid value ') + 1);
    // The path graphql-js prints after the value: ` at "<variable><path>"; ` (inspected strings escape their quotes, so it cannot come from a value).
    const path = / at "([_A-Za-z][_0-9A-Za-z.[\]]*)"; /.exec(message)?.[1];
    return `${variable} got an invalid value${path ? ` at "${path}"` : ""} (values are not logged)`;
  }
  const where = error.locations?.[0] ? ` (line ${error.locations[0].line}, column ${error.locations[0].column})` : "";
  if (message.startsWith("Syntax Error:")) return `${message.replace(QUOTED, (quoted) => (PUNCTUATOR.test(quoted) ? quoted : '"…"'))}${where}`;
  const sensitive = schema && error.source && error.nodes?.length ? sensitiveRangeHolding(schema, error.source, error.nodes) : undefined;
  if (sensitive) return `${sensitive}: the value given was refused (${String(error.extensions?.code ?? "BAD_USER_INPUT")}); values of sensitive arguments are not logged${where}`;
  return message;
}

interface SensitiveRange {
  start: number;
  end: number;
  /** erasurePlan(subjectKey:), ArtifactDraftInput.subjectKeys */
  name: string;
}

const rangesBySource = new WeakMap<Source, SensitiveRange[]>();

/** The sensitive argument or input field one of `nodes` lies within, by name, if any. */
function sensitiveRangeHolding(schema: GraphQLSchema, source: Source, nodes: readonly ASTNode[]): string | undefined {
  let ranges = rangesBySource.get(source);
  if (!ranges) rangesBySource.set(source, (ranges = sensitiveRanges(schema, source)));
  for (const node of nodes) {
    if (!node.loc) continue;
    const range = ranges.find((r) => node.loc!.start >= r.start && node.loc!.end <= r.end);
    if (range) return range.name;
  }
  return undefined;
}

/** Where the document gives a sensitive argument or input field (its name and value, literals of any depth included). */
function sensitiveRanges(schema: GraphQLSchema, source: Source): SensitiveRange[] {
  let document;
  try {
    document = parse(source);
  } catch {
    return [];
  }
  const ranges: SensitiveRange[] = [];
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        const field = typeInfo.getFieldDef();
        if (node.loc && isSensitive(typeInfo.getArgument())) ranges.push({ start: node.loc.start, end: node.loc.end, name: `${field?.name ?? "?"}(${node.name.value}:)` });
      },
      ObjectField(node) {
        const parent = getNamedType(typeInfo.getParentInputType());
        const field = isInputObjectType(parent) ? parent.getFields()[node.name.value] : undefined;
        if (node.loc && isSensitive(field)) ranges.push({ start: node.loc.start, end: node.loc.end, name: `${parent!.name}.${node.name.value}` });
      },
    }),
  );
  return ranges;
}
