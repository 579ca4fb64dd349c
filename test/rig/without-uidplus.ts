import { lineRelay } from './line-relay.ts';

/**
 * A proxy in front of an IMAP server that takes the UIDPLUS response codes (`[COPYUID …]`, `[APPENDUID …]`, RFC 4315)
 * out of its answers, for a server that has no UIDPLUS at all: Dovecot, told to advertise only IMAP4rev1
 * (`imap_capability`), still says where every copied and appended message landed, so without this the service's
 * paths for servers that do not (hMailServer, older Exchange and UW-IMAP) never ran. Answers are read line by line;
 * only a status line (`tag OK …`, `* OK …`) carrying one of those codes is changed, never the bytes of a message.
 */
export function withoutUidplus(target: number): Promise<{ port: number; close: () => Promise<void> }> {
  return lineRelay(target, () => ({ fromServer: (lines) => lines.replace(STATUS_WITH_CODE, '$1') }));
}

/** A status line's UIDPLUS code, with the text after it kept: `a OK [COPYUID 1 2 3] Done` → `a OK Done`. */
const STATUS_WITH_CODE = /^([A-Za-z0-9.*]+ OK )\[(?:COPYUID|APPENDUID) [^\]\r\n]*\] ?/gm;
