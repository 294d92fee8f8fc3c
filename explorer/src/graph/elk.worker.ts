/// <reference lib="webworker" />
/**
 * ELK's layout engine in a Web Worker: elk-worker answers elk-api's messages (elk-layout.ts) on its own
 * (it sees no `document` and listens on `self`). Its own chunk, loaded only when a layout is needed.
 */
import "elkjs/lib/elk-worker.min.js";
