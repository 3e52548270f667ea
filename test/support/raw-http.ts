import { type Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  agent?: Agent;
  /** The local address to send from (any of 127.0.0.0/8 on loopback): another client, as the server sees it. */
  localAddress?: string;
}

/**
 * One request through `node:http`, which (unlike fetch) sends whatever `Host` and other headers it is given.
 */
export function rawRequest(url: string, init: RawRequest = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // A declared length, or Node sends a GET's or DELETE's body unframed.
    const length = init.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(init.body)) };
    const headers = { ...length, ...init.headers };
    const from = init.localAddress === undefined ? {} : { localAddress: init.localAddress };
    const req = httpRequest(url, { method: init.method ?? 'GET', headers, agent: init.agent, ...from }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
