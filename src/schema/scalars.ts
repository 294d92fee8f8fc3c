import { GraphQLScalarType, Kind, type ValueNode } from "graphql";
import { DateTimeResolver, JSONResolver, SafeIntResolver } from "graphql-scalars";
import { builder } from "./builder";
import { formatCount, limitError } from "../limits";
import { jsonDepthExceeds } from "../limits/json-depth";
import { REQUEST_LIMITS } from "../limits/request-limits";
import { RawJsonText } from "../services/raw-json-text";

const { maxJsonDepth } = REQUEST_LIMITS;

/**
 * graphql-scalars' JSON, refusing input nested deeper than maxJsonDepth (JSON_TOO_DEEP) before
 * anything walks it: canonical JSON (specIds), config-reference search and the database driver
 * all recurse, and `params` nested 5,000 deep would overflow the stack. Depth is measured with a
 * loop; output is not limited (it is what was accepted).
 */
const JSONScalar = new GraphQLScalarType({
  ...JSONResolver.toConfig(),
  description: `${JSONResolver.description} As an input, at most ${maxJsonDepth} objects and lists deep (JSON_TOO_DEEP).`,
  parseValue: (value) => {
    // A big value kept as its text for a field that reads it so (checked, depth included, off the event loop when the body was read).
    if (value instanceof RawJsonText) return value;
    if (jsonDepthExceeds(value, maxJsonDepth)) throw jsonTooDeep();
    return JSONResolver.parseValue(value);
  },
  parseLiteral: (ast, variables) => {
    if (literalDepthExceeds(ast, maxJsonDepth)) throw jsonTooDeep(ast);
    return JSONResolver.parseLiteral(ast, variables);
  },
});

function jsonTooDeep(node?: ValueNode) {
  return limitError("JSON_TOO_DEEP", `JSON input nests objects and lists more than ${formatCount(maxJsonDepth)} levels deep.`, { limit: maxJsonDepth }, node);
}


function literalDepthExceeds(ast: ValueNode, max: number): boolean {
  const pending: [ValueNode, number][] = [[ast, 0]];
  while (pending.length) {
    const [node, depth] = pending.pop()!;
    if (node.kind !== Kind.OBJECT && node.kind !== Kind.LIST) continue;
    if (depth + 1 > max) return true;
    for (const child of node.kind === Kind.LIST ? node.values : node.fields.map((field) => field.value)) pending.push([child, depth + 1]);
  }
  return false;
}

builder.addScalarType("JSON", JSONScalar);
/**
 * graphql-scalars' DateTime, also serializing a Date made in another realm, which `instanceof Date`
 * does not recognise: heavy reads come back from worker threads, and a test runner's sandbox
 * (jest's vm context) is not the realm the thread's answer is deserialized in.
 */
const DateTimeScalar = new GraphQLScalarType({
  ...DateTimeResolver.toConfig(),
  serialize: (value) => DateTimeResolver.serialize(Object.prototype.toString.call(value) === "[object Date]" && !(value instanceof Date) ? new Date((value as Date).getTime()) : value),
});

builder.addScalarType("DateTime", DateTimeScalar);
builder.addScalarType("SafeInt", SafeIntResolver);
