/** Browser safety: Host and Origin checks, CSRF prevention, CORS, introspection. */
export { hostAllowed, hostnameOf, isLoopbackAddress, originAllowed } from "./addresses";
export { corsOptions } from "./cors";
export { CSRF_HEADERS, useCsrfPrevention } from "./csrf";
export { useIntrospection } from "./introspection";
export { guardRequests, refusalFor, refuseUpgrade, type SocketPolicy } from "./node-guard";
export { useOriginCheck } from "./use-origin-check";
