import { describe, expect, it } from 'vitest';
import { deploymentWarnings } from './deployment-warnings.ts';

describe('settings that start but will not work as expected', () => {
  it('says nothing for the defaults, a loopback service, or https behind a proxy', () => {
    expect(deploymentWarnings({ host: '127.0.0.1', baseUrl: 'http://127.0.0.1:8787' })).toEqual([]);
    expect(deploymentWarnings({ host: '::1', baseUrl: 'http://localhost:8787' })).toEqual([]);
    expect(deploymentWarnings({ host: '127.0.0.1', baseUrl: 'https://triage.example.com' })).toEqual([]);
    expect(deploymentWarnings({ host: '0.0.0.0', baseUrl: 'https://triage.example.com' })).toEqual([]);
  });

  it('warns when other machines can reach a service whose links point at this one', () => {
    const [warning, ...rest] = deploymentWarnings({ host: '0.0.0.0', baseUrl: 'http://127.0.0.1:8787' });
    expect(rest).toEqual([]);
    expect(warning).toMatch(
      /^HOST is 0\.0\.0\.0, .* BASE_URL is http:\/\/127\.0\.0\.1:8787: .*only work on this machine/,
    );
  });

  it('warns when BASE_URL is plain http to another machine', () => {
    const [warning, ...rest] = deploymentWarnings({ host: '0.0.0.0', baseUrl: 'http://nas.home.arpa:8787' });
    expect(rest).toEqual([]);
    expect(warning).toMatch(/^BASE_URL is http:\/\/nas\.home\.arpa:8787, plain http .* unencrypted/);
  });
});
