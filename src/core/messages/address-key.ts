/**
 * The form two spellings of one address or domain share, for the rules that compare a sender with a list the person
 * keeps (VIPs, known-good senders, the blocklist): lower case, no trailing dot, and an internationalised domain in its
 * ASCII form (decision 0070). A mail client shows `anna@müller.de` where the message's header says
 * `anna@xn--mller-kva.de`; the person copies the first, the rule reads the second, and without one form the VIP rule
 * never matched.
 */
export function domainKey(domain: string): string {
  const d = domain.trim().toLowerCase().replace(/\.$/, '');
  // ASCII is already its own form; a value with URL syntax in it is no host name, and is compared as it is.
  if (/^[\x21-\x7e]*$/.test(d) || /[\s/\\?#@:%[\]<>"]/.test(d)) return d;
  try {
    // The WHATWG URL parser applies UTS #46 (the mapping browsers and mail clients use) and Punycode.
    return new URL(`http://${d}/`).hostname;
  } catch {
    return d; // not a host name at all: it matches only itself
  }
}

/** An address in the form the rules compare: its local part in lower case, its domain by domainKey. */
export function addressKey(address: string): string {
  const a = address.trim().toLowerCase();
  const at = a.lastIndexOf('@');
  return at < 0 ? a : `${a.slice(0, at)}@${domainKey(a.slice(at + 1))}`;
}

/**
 * An address as it goes into an envelope or a Message-ID: its domain in ASCII (`anna@xn--mller-kva.de`), which every
 * mail server takes, where the UTF-8 form needs SMTPUTF8 at every hop (decision 0110). The local part is kept as it is.
 */
export function sendableAddress(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0 ? address : `${address.slice(0, at)}@${domainKey(address.slice(at + 1))}`;
}

/** What ends a run of text a reader could take for an address. */
const NOT_IN_ADDRESS = /[\s<>"'(),;:[\]]+/;

/**
 * The things a reader takes for an address inside a display name — `x@y.z`: text before an `@`, and after it text with
 * a dot inside — in order; what `/[^X@]+@[^X@]+\.[^X@]+/g` finds, in time linear in the name: that pattern, tried at
 * each character of a long run without an `@`, took time quadratic in a name a sender writes (decision 0158).
 */
function addressesInText(text: string): string[] {
  const found: string[] = [];
  for (const run of text.split(NOT_IN_ADDRESS)) {
    const pieces = run.split('@');
    for (let i = 0; i + 1 < pieces.length; i++) {
      const local = pieces[i] ?? '';
      const domain = pieces[i + 1] ?? '';
      const dot = domain.indexOf('.', 1);
      if (local === '' || dot < 0 || dot > domain.length - 2) continue;
      found.push(`${local}@${domain}`);
      i++; // the domain is taken: the next address starts after its '@'
    }
  }
  return found;
}

/**
 * The address a display name shows when it is not the address the name stands for — `"boss@corp.test"
 * <someone@elsewhere.test>` — or undefined. A reader sees the name (decisions 0103, 0107).
 */
export function otherAddressShown(name: string | null, address: string): string | undefined {
  if (name === null) return undefined;
  return addressesInText(name).find((shown) => addressKey(shown) !== addressKey(address));
}
