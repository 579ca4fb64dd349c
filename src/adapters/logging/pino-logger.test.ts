import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createPinoLogger } from './pino-logger.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { lines, stream };
}

describe('pino logger redaction', () => {
  it('replaces credentials at the top level, one level down and in request headers', () => {
    const { lines, stream } = capture();
    const log = createPinoLogger('info', stream);
    log.info(
      {
        password: 'pw-1',
        nested: { token: 'itk_secret', apiKey: 'k-2' },
        req: { headers: { authorization: 'Bearer itk_x', cookie: 'sid=abc' } },
      },
      'x',
    );
    log.child({ reqId: 'r1' }).info({ body: { approvalCode: '123456', refreshToken: 'itr_y' } }, 'y');
    const text = lines.join('');
    for (const secret of ['pw-1', 'itk_secret', 'k-2', 'Bearer itk_x', 'sid=abc', '123456', 'itr_y']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
    expect(text).toContain('"reqId":"r1"');
  });
});
