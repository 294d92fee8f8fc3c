import { type DocumentNode, Kind, Lexer, Source, type Token, TokenKind } from "graphql";
import type { Plugin } from "graphql-yoga";
import { formatCount, limitError } from "./limit-error";
import { REQUEST_LIMITS } from "./request-limits";

const OPENING = new Set<string>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/**
 * Refuses a document before graphql-js parses it: one longer than maxDocumentLength characters
 * (DOCUMENT_TOO_LARGE), or one nesting brackets deeper than maxDocumentNesting (QUERY_TOO_DEEP).
 * The parser, and every validation rule after it, recurse once per level: 5,000 nested inline
 * fragments or lists overflow the stack. graphql-js's lexer is a loop, so counting is safe at any
 * depth; a document the lexer rejects is left for the parser to report as a syntax error.
 */
export function checkDocumentShape(source: string): void {
  if (source.length > REQUEST_LIMITS.maxDocumentLength) {
    throw limitError(
      "DOCUMENT_TOO_LARGE",
      `The document is ${formatCount(source.length)} characters long; at most ${formatCount(REQUEST_LIMITS.maxDocumentLength)} are accepted. Pass large inputs as variables.`,
      { limit: REQUEST_LIMITS.maxDocumentLength, found: source.length },
    );
  }
  const tooDeep = firstTokenTooDeep(source, REQUEST_LIMITS.maxDocumentNesting);
  if (tooDeep) {
    throw limitError(
      "QUERY_TOO_DEEP",
      `The document nests brackets more than ${REQUEST_LIMITS.maxDocumentNesting} levels deep (line ${tooDeep.line}, column ${tooDeep.column}).`,
      { limit: REQUEST_LIMITS.maxDocumentNesting },
    );
  }
}

function firstTokenTooDeep(source: string, maxNesting: number): Token | undefined {
  const lexer = new Lexer(new Source(source));
  let depth = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      if (OPENING.has(token.kind) && ++depth > maxNesting) return token;
      if (CLOSING.has(token.kind)) depth -= 1;
    }
  } catch {
    // A lexical error: left for the parser, which reports it as a syntax error.
  }
  return undefined;
}

/**
 * TOO_MANY_OPERATIONS or TOO_MANY_FRAGMENTS for a parsed document defining more than maxOperations
 * operations or maxFragments fragments: what graphql-js's validation costs grows with their number
 * (each operation against the whole document; each pair of fragments spread in one selection).
 */
export function checkDefinitionCounts(document: DocumentNode): void {
  let operations = 0;
  let fragments = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) operations += 1;
    else if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments += 1;
  }
  if (operations > REQUEST_LIMITS.maxOperations) {
    throw limitError(
      "TOO_MANY_OPERATIONS",
      `The document defines ${formatCount(operations)} operations; at most ${formatCount(REQUEST_LIMITS.maxOperations)} are accepted in one document (a request runs one of them).`,
      { limit: REQUEST_LIMITS.maxOperations, found: operations },
    );
  }
  if (fragments > REQUEST_LIMITS.maxFragments) {
    throw limitError(
      "TOO_MANY_FRAGMENTS",
      `The document defines ${formatCount(fragments)} fragments; at most ${formatCount(REQUEST_LIMITS.maxFragments)} are accepted in one document.`,
      { limit: REQUEST_LIMITS.maxFragments, found: fragments },
    );
  }
}

/** checkDocumentShape on every document Yoga parses, over HTTP and graphql-ws, and checkDefinitionCounts once it is parsed. */
export function useDocumentShapeLimits(): Plugin {
  return {
    onParse({ params }) {
      checkDocumentShape(typeof params.source === "string" ? params.source : params.source.body);
      return ({ result }) => {
        if (result && typeof result === "object" && (result as DocumentNode).kind === Kind.DOCUMENT) checkDefinitionCounts(result as DocumentNode);
      };
    },
  };
}
