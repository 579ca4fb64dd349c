import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startHttpsSink,
  startTripwire,
  testTls,
  type HttpsSink,
  type Tripwire,
} from '../../../test/rig/https-sink.ts';
import { oneClickPoster } from './one-click-poster.ts';

// The one request RFC 8058 allows, against a real https server with a CA only this test trusts; and the SSRF
// guard, against listening loopback sockets that must never see a connection.
const lookup = (map: Record<string, string[]>) => (name: string) =>
  map[name] === undefined ? Promise.reject(new Error(`ENOTFOUND ${name}`)) : Promise.resolve(map[name]);

let tls: ReturnType<typeof testTls>;
let sink: HttpsSink;
let wire: Tripwire;
let wire6: Tripwire | undefined;

beforeAll(async () => {
  tls = testTls(['unsub.test']);
  sink = await startHttpsSink(tls);
  wire = await startTripwire('127.0.0.1');
  wire6 = await startTripwire('::1').catch(() => undefined); // a host without IPv6 loopback skips that case only
});
afterAll(async () => {
  await sink.close();
  await wire.close();
  await wire6?.close();
});

const allowed = () =>
  oneClickPoster({
    allowPrivateHosts: ['unsub.test'],
    lookup: lookup({ 'unsub.test': ['127.0.0.1'] }),
    ca: tls.ca,
  });

describe('the one-click POST', () => {
  it('sends exactly one POST with the RFC 8058 body, no cookies and no credentials', async () => {
    sink.requests.length = 0;
    const outcome = await allowed().post(`https://unsub.test:${String(sink.port)}/u/abc?list=weekly`);
    expect(outcome).toEqual({ kind: 'answered', status: 200 });
    expect(sink.requests).toHaveLength(1);
    const [seen] = sink.requests;
    expect(seen).toMatchObject({
      method: 'POST',
      url: '/u/abc?list=weekly',
      body: 'List-Unsubscribe=One-Click',
    });
    expect(seen?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(seen?.headers['cookie']).toBeUndefined();
    expect(seen?.headers['authorization']).toBeUndefined();
  });

  it('does not follow a redirect, and reads no more than a small part of a large answer', async () => {
    sink.requests.length = 0;
    sink.respond = () => ({
      status: 302,
      headers: { location: `https://unsub.test:${String(sink.port)}/elsewhere` },
    });
    expect(await allowed().post(`https://unsub.test:${String(sink.port)}/u/1`)).toEqual({
      kind: 'answered',
      status: 302,
    });
    expect(sink.requests.map((r) => r.url)).toEqual(['/u/1']);
    sink.respond = () => ({ status: 200, body: 'x'.repeat(2_000_000) });
    expect(await allowed().post(`https://unsub.test:${String(sink.port)}/u/2`)).toEqual({
      kind: 'answered',
      status: 200,
    });
    sink.respond = () => ({ status: 200 });
  });

  it('a host whose first address refuses the connection is reached at its next, both vetted', async () => {
    sink.requests.length = 0;
    // Nothing listens on 127.0.0.2 (the sink is on 127.0.0.1 only): the connection there is refused.
    const poster = oneClickPoster({
      allowPrivateHosts: ['unsub.test'],
      lookup: lookup({ 'unsub.test': ['127.0.0.2', '127.0.0.1'] }),
      ca: tls.ca,
    });
    expect(await poster.post(`https://unsub.test:${String(sink.port)}/u/next`)).toEqual({
      kind: 'answered',
      status: 200,
    });
    expect(sink.requests.map((r) => r.url)).toEqual(['/u/next']);
  });

  it('a server that never answers is a failure, not a success', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    const poster = oneClickPoster({
      allowPrivateHosts: ['slow.test'],
      lookup: lookup({ 'slow.test': ['127.0.0.1'] }),
      timeoutMs: 300,
    });
    expect(await poster.post(`https://slow.test:${String(port)}/u`)).toMatchObject({ kind: 'failed' });
    silent.close();
  });
});

describe('the SSRF guard on one-click links', () => {
  const poster = oneClickPoster({
    lookup: lookup({ 'evil.test': ['127.0.0.1'], 'mixed.test': ['93.184.216.34', '10.0.0.1'] }),
    ca: '',
  });
  const p = () => String(wire.port);
  const cases = () => [
    `https://127.0.0.1:${p()}/u`,
    `https://localhost:${p()}/u`,
    `https://2130706433:${p()}/u`,
    `https://0x7f000001:${p()}/u`,
    `https://0177.0.0.1:${p()}/u`,
    `https://127.1:${p()}/u`,
    `https://[::ffff:127.0.0.1]:${p()}/u`,
    `https://evil.test:${p()}/u`,
    `https://mixed.test:${p()}/u`,
    `https://169.254.169.254/latest/meta-data`,
    `http://news.example.test/u`,
    `https://user:secret@news.example.test/u`,
    'not a url',
  ];

  it('refuses loopback, private and metadata addresses in every spelling before any connection', async () => {
    for (const url of cases()) expect(await poster.post(url), url).toMatchObject({ kind: 'refused' });
    if (wire6 !== undefined)
      expect(await poster.post(`https://[::1]:${String(wire6.port)}/u`)).toMatchObject({ kind: 'refused' });
    expect(wire.connections()).toBe(0);
    expect(wire6?.connections() ?? 0).toBe(0);
  });
});
