import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { makeScratchDir } from './scratch-dir.ts';

/** A CA made for one test run, and a server certificate it signed for the given names. */
export interface TestTls {
  readonly ca: string;
  readonly key: string;
  readonly cert: string;
}

/** openssl (Debian's) makes the CA and the leaf; nothing is trusted outside the test that passes `ca`. */
export function testTls(names: readonly string[]): TestTls {
  const dir = makeScratchDir('tls-');
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Inbox Triage test CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
  );
  run(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${names[0] ?? 'localhost'}`,
    '-keyout',
    'leaf.key',
    '-out',
    'leaf.csr',
  );
  const alt = names.map((n, i) =>
    /^[\d.]+$/.test(n) ? `IP.${String(i)} = ${n}` : `DNS.${String(i)} = ${n}`,
  );
  writeFileSync(join(dir, 'ext.cnf'), `subjectAltName = @alt\n[alt]\n${alt.join('\n')}\n`);
  run(
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
    '-out',
    'leaf.crt',
  );
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { ca: read('ca.crt'), key: read('leaf.key'), cert: read('leaf.crt') };
}

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** An https server on 127.0.0.1 that records every request and answers what `respond` says (default 200). */
export interface HttpsSink {
  readonly port: number;
  readonly requests: SeenRequest[];
  respond: (req: SeenRequest) => { status: number; headers?: Record<string, string>; body?: string };
  close(): Promise<void>;
}

export async function startHttpsSink(tls: TestTls): Promise<HttpsSink> {
  const sink: HttpsSink = {
    port: 0,
    requests: [],
    respond: () => ({ status: 200, body: 'unsubscribed' }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
  const server = createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      sink.requests.push(seen);
      const answer = sink.respond(seen);
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(sink, { port: (server.address() as AddressInfo).port });
}

/** A listening socket that only counts connections: an SSRF guard must never let one reach it. */
export interface Tripwire {
  readonly port: number;
  readonly connections: () => number;
  close(): Promise<void>;
}

export async function startTripwire(host = '127.0.0.1', port = 0): Promise<Tripwire> {
  let count = 0;
  const server: Server = createTcpServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}
