import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, isScalarType, isUnionType } from "graphql";
import { schema } from "../../src/schema/index";

/**
 * Every type, field, argument and enum value of the public schema says what it is: the schema is the API's
 * reference (GraphiQL's documentation pane, editors' hints, generated clients). GraphQL's own built-in
 * scalars are described by the specification.
 */
export function undescribed(): string[] {
  const missing: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith("__") || (isScalarType(type) && ["String", "Int", "Float", "Boolean", "ID"].includes(type.name))) continue;
    if (!type.description?.trim()) missing.push(`type ${type.name}`);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (!field.description?.trim()) missing.push(`${type.name}.${field.name}`);
        for (const arg of "args" in field ? field.args : []) if (!arg.description?.trim()) missing.push(`${type.name}.${field.name}(${arg.name})`);
      }
    }
    if (isEnumType(type)) for (const value of type.getValues()) if (!value.description?.trim()) missing.push(`${type.name}.${value.name}`);
    if (isUnionType(type)) continue;
  }
  return missing;
}

