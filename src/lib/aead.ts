import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM with a per-purpose subkey (HKDF-SHA256 of the master key and a label), so a value sealed for one
 * purpose (a flash cookie) can never be opened as another (a stored credential). Output: base64url(iv|tag|ct).
 * The associated data binds a sealed value to its context (e.g. the inbox a credential belongs to).
 */
export interface Aead {
  seal(plaintext: string, associatedData?: string): string;
  open(sealed: string, associatedData?: string): string | undefined;
}

export function aead(masterKey: Buffer, purpose: string): Aead {
  const key = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `inbox-triage:${purpose}`, 32));
  return {
    seal(plaintext, ad = '') {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(ad, 'utf8'));
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64url');
    },
    open(sealed, ad = '') {
      try {
        const buf = Buffer.from(sealed, 'base64url');
        if (buf.length < 28) return undefined;
        const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(0, 12));
        decipher.setAAD(Buffer.from(ad, 'utf8'));
        decipher.setAuthTag(buf.subarray(12, 28));
        return Buffer.concat([decipher.update(buf.subarray(28)), decipher.final()]).toString('utf8');
      } catch {
        return undefined; // tampered, truncated or sealed under another key/purpose
      }
    },
  };
}
