import { createSocket } from 'node:dgram';

/** What the server answers for a name: its MX records, a name without any (NOERROR, no answer), or silence. */
export type DnsAnswer =
  | { readonly mx: readonly { readonly priority: number; readonly exchange: string }[] }
  | 'no-records'
  | 'silent';

export interface DnsServer {
  /** `127.0.0.1:<port>`, as `dns.Resolver#setServers` takes it. */
  readonly address: string;
  /** The names asked about, in order (lower case). */
  readonly asked: string[];
  stop(): Promise<void>;
}

const MX = 15;

/**
 * An authoritative DNS server on 127.0.0.1 over UDP for the tests of what the service looks up (RFC 1035 §4): MX
 * questions get the records given here, a name not given gets NXDOMAIN, and every other question type NOERROR with no
 * answer. Node's own resolver (c-ares) talks to it as it would to the system's.
 */
export async function startDnsServer(zone: Readonly<Record<string, DnsAnswer>>): Promise<DnsServer> {
  const socket = createSocket('udp4');
  const asked: string[] = [];
  socket.on('message', (query, peer) => {
    const q = question(query);
    if (q === undefined) return;
    asked.push(q.name);
    const answer = zone[q.name];
    if (answer === 'silent') return;
    const records = answer !== undefined && answer !== 'no-records' && q.type === MX ? answer.mx : [];
    socket.send(reply(query, q.end, answer === undefined ? 3 : 0, records), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${String(socket.address().port)}`,
    asked,
    stop: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** The first question's name, type and where it ends (a question's name is never compressed). */
function question(query: Buffer): { name: string; type: number; end: number } | undefined {
  if (query.length < 12 || query.readUInt16BE(4) < 1) return undefined;
  const labels: string[] = [];
  let at = 12;
  while (at < query.length && query[at] !== 0) {
    const n = query[at]!;
    labels.push(query.toString('latin1', at + 1, at + 1 + n));
    at += 1 + n;
  }
  if (at + 5 > query.length) return undefined;
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(at + 1), end: at + 5 };
}

function reply(
  query: Buffer,
  questionEnd: number,
  rcode: number,
  records: readonly { priority: number; exchange: string }[],
): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR, authoritative, the query's RD, recursion available, and the response code.
  header.writeUInt16BE(0x8400 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  const answers = records.map((r) => {
    const exchange = encodeName(r.exchange);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the question's name
    rr.writeUInt16BE(MX, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(300, 6);
    rr.writeUInt16BE(2 + exchange.length, 10);
    const preference = Buffer.alloc(2);
    preference.writeUInt16BE(r.priority, 0);
    return Buffer.concat([rr, preference, exchange]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
}

function encodeName(name: string): Buffer {
  const parts = name
    .split('.')
    .filter((l) => l !== '')
    .map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')]));
  return Buffer.concat([...parts, Buffer.from([0])]);
}
