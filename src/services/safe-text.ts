/**
 * Names, roles and hashes become ids and hash inputs, which see UTF-8: a lone surrogate encodes as
 * U+FFFD, so two different strings would give one id. Such strings, and control characters (which no
 * file or role name needs and which corrupt logs and DOT output), are refused wherever they enter.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `text` is refused (a lone surrogate or a control character, with its position), or undefined when it is fine. */
export function unsafeTextReason(text: string): string | undefined {
  const surrogate = LONE_SURROGATE.exec(text);
  if (surrogate) return `contains a lone surrogate (${codePoint(surrogate[0])}) at index ${surrogate.index}, which is not valid Unicode`;
  const control = CONTROL.exec(text);
  if (control) return `contains the control character ${codePoint(control[0])} at index ${control.index}`;
  return undefined;
}

const codePoint = (char: string) => `U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
