import http from "node:http";
import { type WebSocket, WebSocketServer } from "ws";

/**
 * The fan-out bench's floor (bench/feeds-bench.ts): the least a Node process can spend to deliver one
 * run to every subscriber. A bare `ws` server (the library provgraph's graphql-ws endpoint runs on)
 * that speaks just enough graphql-transport-ws for the bench's subscribers (connection_init → ack,
 * subscribe, complete) and, on `POST /publish`, encodes one run's payload once and writes it to every
 * subscribed socket in its `next` envelope: no GraphQL, no feed, no database — only the socket writes.
 * Run in a process of its own (`node --import tsx bench/socket-floor-server.ts`), it prints the line
 * the bench waits for: `listening on http://127.0.0.1:<port>`.
 */
const subscriptions = new Map<WebSocket, string>();
let sequence = 0;

const server = http.createServer((request, response) => {
  if (request.method !== "POST" || request.url !== "/publish") {
    response.writeHead(404).end();
    return;
  }
  request.resume();
  request.on("end", () => {
    sequence += 1;
    const payload = JSON.stringify({ data: { runRecorded: { sequence, committedAt: new Date().toISOString(), execution: { runId: `run_${sequence.toString(16).padStart(16, "0")}`, status: "SUCCEEDED" } } } });
    for (const [socket, id] of subscriptions) socket.send(`{"id":${JSON.stringify(id)},"type":"next","payload":${payload}}`);
    response.writeHead(200, { "content-type": "application/json" }).end(`{"sequence":${sequence}}`);
  });
});

const sockets = new WebSocketServer({ server, perMessageDeflate: false });
sockets.on("connection", (socket) => {
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as { type: string; id?: string };
    if (message.type === "connection_init") socket.send(`{"type":"connection_ack"}`);
    else if (message.type === "subscribe" && message.id) subscriptions.set(socket, message.id);
    else if (message.type === "complete") subscriptions.delete(socket);
  });
  socket.on("close", () => subscriptions.delete(socket));
});

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object") console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.on("SIGTERM", () => process.exit(0));
