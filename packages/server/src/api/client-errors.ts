import http from 'node:http';
import type { Socket } from 'node:net';

/**
 * Answers a request Node could not parse (headers over 16 KB, a malformed request line, a request that took over
 * `requestTimeout`) before closing its socket. Fastify's own handler sends the same answer without
 * `Connection: close`, so a keep-alive client took the socket as reusable and its next request on it failed with
 * "socket hang up" (found by `npm run fuzz`).
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const message =
    status === 408
      ? 'The request did not arrive in time'
      : status === 431
        ? 'The request line and headers exceed 16 KB'
        : 'The request is not valid HTTP';
  const body = JSON.stringify({ error: http.STATUS_CODES[status], message, statusCode: status });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
