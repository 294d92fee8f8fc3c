import {
  getNamedType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  isAbstractType,
  isEnumType,
  isInterfaceType,
  isLeafType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from "graphql";

/**
 * Selections generated from the schema: every field of every type a root field reaches, so a field
 * added to any of them is selected without anyone writing it into a query. Each object type selects
 * all its scalar and enum fields (and __typename) wherever it appears; its object fields are followed
 * the first `expansions` times the type is met in one document and `maxDepth` levels deep at most
 * (the schema's types reach one another in cycles). Lists with `first` ask for `first`; an argument
 * that must be given takes its value from `argumentValues` ("Type.field.arg" → a GraphQL literal),
 * and a field with a required argument none is given for is not selected (it is reported).
 */
export interface WalkOptions {
  maxDepth: number;
  expansions: number;
  first: number;
  argumentValues: Readonly<Record<string, string>>;
}

export interface WalkDocument {
  text: string;
  /** Object types the document selects fields of. */
  types: Set<string>;
  /** Fields left out for want of a value for a required argument (Type.field). */
  unwalkable: Set<string>;
}

/** The selection set of `type` (an object, interface or union), as GraphQL text. */
export function walkSelection(schema: GraphQLSchema, type: GraphQLNamedType, options: WalkOptions, into: WalkDocument, depth = 0, met: Map<string, number> = new Map()): string {
  if (isAbstractType(type)) {
    return `{ __typename ${schema
      .getPossibleTypes(type)
      .map((possible) => `... on ${possible.name} ${walkSelection(schema, possible, options, into, depth, met)}`)
      .join(" ")} }`;
  }
  if (!isObjectType(type)) return "";
  into.types.add(type.name);
  const times = met.get(type.name) ?? 0;
  met.set(type.name, times + 1);
  const follow = depth < options.maxDepth && times < options.expansions;
  const parts = ["__typename"];
  for (const field of Object.values(type.getFields())) {
    const named = getNamedType(field.type);
    const args = argumentsOf(type, field, options);
    if (args === undefined) {
      into.unwalkable.add(`${type.name}.${field.name}`);
      continue;
    }
    if (isLeafType(named)) parts.push(`${field.name}${args}`);
    else if (follow) parts.push(`${field.name}${args} ${walkSelection(schema, named, options, into, depth + 1, met)}`);
  }
  return `{ ${parts.join(" ")} }`;
}

/** The argument list a walk passes to a field, or undefined when a required argument has no value. */
function argumentsOf(type: GraphQLObjectType, field: GraphQLField<unknown, unknown>, options: WalkOptions): string | undefined {
  const given: string[] = [];
  for (const arg of field.args) {
    const value = options.argumentValues[`${type.name}.${field.name}.${arg.name}`];
    if (value !== undefined) given.push(`${arg.name}: ${value}`);
    else if (arg.name === "first") given.push(`first: ${options.first}`);
    else if (isNonNullType(arg.type) && arg.defaultValue === undefined) return undefined;
  }
  return given.length ? `(${given.join(", ")})` : "";
}

/** Scalars that can carry text: everything but numbers, booleans and instants. */
export function carriesText(type: GraphQLNamedType): boolean {
  return isScalarType(type) && !["Int", "Float", "Boolean", "SafeInt", "DateTime"].includes(type.name);
}

/** Every text-carrying field (Type.field) of the given object types. */
export function textFieldsOf(schema: GraphQLSchema, typeNames: Iterable<string>): string[] {
  const fields: string[] = [];
  for (const name of typeNames) {
    const type = schema.getType(name);
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields())) if (carriesText(getNamedType(field.type)) && !isEnumType(getNamedType(field.type))) fields.push(`${name}.${field.name}`);
  }
  return fields.sort();
}

/** The text-carrying fields (Type.field) a result answered with something other than null, found by each object's __typename. */
export function answeredFields(schema: GraphQLSchema, value: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) answeredFields(schema, item, into);
    return into;
  }
  if (value === null || typeof value !== "object") return into;
  const typeName = (value as { __typename?: unknown }).__typename;
  const type = typeof typeName === "string" ? schema.getType(typeName) : undefined;
  for (const [key, child] of Object.entries(value)) {
    if (key === "__typename") continue;
    const field = isObjectType(type) ? type.getFields()[key] : undefined;
    if (field && carriesText(getNamedType(field.type))) {
      if (child !== null && !(Array.isArray(child) && child.length === 0)) into.add(`${typeName}.${key}`);
      continue;
    }
    answeredFields(schema, child, into);
  }
  return into;
}
