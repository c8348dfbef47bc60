import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { rawRequest } from '../support/raw-post.ts';

// start runs this simulator on a loopback port and prints its URL; its tokens are documented
// (sim-client-token, …) and /_sim/ takes no token. A page the operator visits can reach
// 127.0.0.1 too: a text/plain POST needs no preflight, and DNS rebinding lets it read answers.
describe('the simulator refuses what web pages send it', () => {
  let sim: RunningSimulator;
  let port: string;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 3, customers: 2, rateLimit: false });
    port = new URL(sim.url).port;
  });
  afterAll(async () => {
    await sim?.close();
  });

  const send = (path: string, headers: Record<string, string>, body = '') =>
    rawRequest({ host: '127.0.0.1', port, method: 'POST', path, headers, body });
  const faultRate = async () =>
    ((await (await fetch(`${sim.url}/_sim/faults`)).json()) as { rate: number }).rate;

  it('refuses a request that carries an Origin (a no-cors POST) with 403, changing nothing', async () => {
    const answer = await send(
      '/_sim/faults',
      {
        host: `127.0.0.1:${port}`,
        origin: 'http://attacker.example',
        'content-type': 'text/plain',
      },
      '{"rate":1}',
    );
    expect(answer.status).toBe(403);
    expect(answer.headers['request-id']).toEqual(expect.any(String));
    expect(JSON.parse(answer.text)).toMatchObject({ Message: expect.stringContaining('web page') });
    expect(await faultRate()).toBe(0);
  });

  it('refuses a request under another name (DNS rebinding) with 403', async () => {
    const answer = await send(
      '/api/connector/v1/customers/getAll',
      { host: `attacker.example:${port}`, 'content-type': 'application/json' },
      JSON.stringify({ ...sim.tokens, Client: 'x', Limitation: { Count: 1 } }),
    );
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toMatchObject({ Message: expect.stringContaining('attacker') });
  });

  it('answers callers under 127.0.0.1 or localhost without an Origin, as before', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const answer = await send('/_sim/faults', { host, 'content-type': 'application/json' }, '{}');
      expect(`${answer.status} ${answer.text}`, host).toMatch(/^200/);
    }
    expect((await fetch(`${sim.url}/_sim/tokens`)).status).toBe(200);
  });
});
