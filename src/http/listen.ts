import type http from "node:http";
import net, { type AddressInfo } from "node:net";

/** The server could not take its address: one line a person can act on, no stack. */
export class ListenError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = "ListenError";
  }
}

/** Listens on host:port (0 = any free port); resolves with the address actually bound. */
export function listen(server: http.Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      reject(explainListenError(error, port, host));
    };
    const onListening = () => {
      server.off("error", onError);
      resolve(server.address() as AddressInfo);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

/**
 * Whether host:port can be bound, checked by binding it and letting it go: start-up asks before it
 * creates or migrates anything, so a busy port (or a HOST not of this machine) leaves no database
 * file behind. Rejects with the ListenError the real listen would give.
 */
export async function checkListenable(port: number, host: string): Promise<void> {
  const probe = net.createServer();
  await listen(probe as unknown as http.Server, port, host);
  await new Promise((resolve) => probe.close(resolve));
}

function explainListenError(error: NodeJS.ErrnoException, port: number, host: string): Error {
  switch (error.code) {
    case "EADDRINUSE":
      return new ListenError(`port ${port} is in use`, error.code);
    case "EADDRNOTAVAIL":
      return new ListenError(`HOST ${host} is not an address of this machine`, error.code);
    default:
      return error;
  }
}
