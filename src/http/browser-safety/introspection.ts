import { NoSchemaIntrospectionCustomRule } from "graphql";
import type { Plugin } from "graphql-yoga";

/** Without introspection, `__schema` and `__type` fail validation (GRAPHQL_VALIDATION_FAILED); `__typename` still works. */
export function useIntrospection(enabled: boolean): Plugin {
  if (enabled) return {};
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}
