/**
 * Arguments and input fields whose values must never reach a log in any form: data-subject keys,
 * and every argument of an erasure. Declared on the argument or input field as
 * `extensions: SENSITIVE`; the request log leaves their values out of every message that would
 * quote them (src/http/log-safe-message.ts).
 */
export const SENSITIVE = Object.freeze({ sensitive: true });

export function isSensitive(definition: { extensions?: Readonly<Record<string, unknown>> | null } | null | undefined): boolean {
  return definition?.extensions?.sensitive === true;
}
