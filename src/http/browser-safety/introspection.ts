import { blockFieldSuggestionsPlugin } from "@escape.tech/graphql-armor-block-field-suggestions";
import { NoSchemaIntrospectionCustomRule } from "graphql";
import type { Plugin } from "graphql-yoga";

/**
 * Without introspection, `__schema` and `__type` fail validation (GRAPHQL_VALIDATION_FAILED);
 * `__typename` still works. Nor do validation errors suggest names ("Did you mean \"artifacts\"?"):
 * asked for misspelt fields one at a time, the suggestions would spell the schema out anyway.
 */
export function useIntrospection(enabled: boolean): Plugin {
  if (enabled) return {};
  const hideSuggestions = blockFieldSuggestionsPlugin({ mask: "" });
  return {
    onValidate(payload) {
      payload.addValidationRule(NoSchemaIntrospectionCustomRule);
      return hideSuggestions.onValidate!(payload as Parameters<NonNullable<typeof hideSuggestions.onValidate>>[0]);
    },
  };
}
