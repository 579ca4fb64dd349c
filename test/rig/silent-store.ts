import { lineRelay } from './line-relay.ts';

/**
 * A proxy in front of an IMAP server that drops the untagged FETCH answers to a STORE, for a server that takes RFC
 * 3501's "SHOULD send an untagged FETCH" (§6.4.6) as leave to send none: the service then cannot learn from the
 * answer which messages a flag change found, and must ask (decision 0149). Only FETCH lines that arrive while one of
 * the client's STOREs is unanswered are dropped; a STORE's FETCH carries flags, never a literal, so no message bytes
 * are touched. `stores` counts the STOREs seen. While `refuseSearch(true)`, it answers every UID SEARCH `NO` itself, as
 * a server whose search is out of service does.
 */
export async function silentStore(target: number): Promise<{
  port: number;
  stores: () => number;
  refuseSearch: (on: boolean) => void;
  close: () => Promise<void>;
}> {
  let stores = 0;
  let refusing = false;
  const relay = await lineRelay(target, () => {
    const storing = new Set<string>();
    return {
      fromClient(data, client) {
        const text = data.toString('latin1');
        const search = refusing ? /^(\S+) UID SEARCH .*\r\n$/i.exec(text) : null;
        if (search !== null) {
          client.write(`${search[1]!} NO [UNAVAILABLE] Search is out of service\r\n`);
          return false;
        }
        for (const m of text.matchAll(/^(\S+) (?:UID )?STORE /gim)) {
          storing.add(m[1]!);
          stores++;
        }
        return true;
      },
      fromServer: (lines) =>
        lines
          .split(/(?<=\r\n)/)
          .filter((line) => {
            const done = /^(\S+) (?:OK|NO|BAD)\b/i.exec(line);
            if (done !== null) storing.delete(done[1]!);
            return storing.size === 0 || !/^\* \d+ FETCH \(/i.test(line);
          })
          .join(''),
    };
  });
  return {
    ...relay,
    stores: () => stores,
    refuseSearch: (on) => {
      refusing = on;
    },
  };
}
