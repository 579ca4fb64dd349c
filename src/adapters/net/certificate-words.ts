/** OpenSSL's certificate failures, as Node reports them in an error's `code`. */
const CERTIFICATE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME|UNABLE_TO_GET_ISSUER/;

/** What the commonest mean, in words. */
const WHY: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: ': the server signed it itself',
  SELF_SIGNED_CERT_IN_CHAIN: ': it was issued by an authority of the server’s own',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: ': it was issued by an authority this machine does not know',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: ': it was issued by an authority this machine does not know',
  CERT_HAS_EXPIRED: ': it has expired',
  ERR_TLS_CERT_ALTNAME_INVALID: ': it was made for another server name',
};

/**
 * A mail server's certificate that could not be verified, in words for the person and what the operator can do
 * (decision 0081); undefined when `code` is no certificate failure.
 */
export function certificateWords(code: string | undefined, host: string): string | undefined {
  if (code === undefined || !CERTIFICATE.test(code)) return undefined;
  return `The TLS certificate of ${host} could not be verified${WHY[code] ?? ''}. If it is a server of your own with a certificate it made itself, the operator of this service can trust it with NODE_EXTRA_CA_CERTS.`;
}
