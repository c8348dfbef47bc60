import { describe, expect, it } from 'vitest';
import { callViaBridge } from '../../shared/cli/call-via-bridge.ts';
import { CliExit } from '../../shared/cli/exit-codes.ts';
import { systemClock } from '../../shared/clock.ts';
import { postToProxy, useConnectorStandIn } from './support/connector-stand-in.ts';
import { collectingPublisher } from './support/simulator-writes.ts';

const ENTERPRISE = 'a0000000-0000-4000-8000-0000000000e1';
const SERVICE = 'a0000000-0000-4000-8000-0000000000e2';
const PAGE = '<html><body><script>fetch("/subscriptions")</script>Bad gateway</body></html>';

const standIn = useConnectorStandIn();

/** A connector on 127.0.0.1 (as behind a proxy) that answers every request `status` with `body` as `contentType`. */
async function connectorAnswering(status: number, contentType: string, body: string) {
  const { url } = await standIn.start(
    (request, response) => {
      request.resume();
      request.on('end', () =>
        response.writeHead(status, { 'content-type': contentType }).end(body),
      );
    },
    {
      writeThrough: {
        publisher: collectingPublisher([]),
        clock: systemClock,
        // A 200 that is not JSON: a write applied whose events cannot be built (reported, not thrown).
        onPublishError: () => undefined,
      },
    },
  );
  return url;
}

const VOUCHER = {
  EnterpriseId: ENTERPRISE,
  VoucherParameters: [{ ServiceId: SERVICE, Name: 'page', Type: 'Public' }],
};

describe('the connector proxy and a connector answer that is not JSON', () => {
  it('never sends an HTML page of the connector as HTML on the admin origin', async () => {
    const api = await connectorAnswering(502, 'text/html; charset=utf-8', PAGE);
    // An add is sent once: the 502 is the answer.
    const answer = await postToProxy(api, 'vouchers/add', VOUCHER);
    expect(answer.status).toBe(502);
    // Before: content-type text/html, no CSP, shown inline: the page's script ran on this origin.
    expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(answer.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(answer.headers.get('content-disposition')).toBe('attachment');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    // The body itself is the connector's, unchanged.
    expect(await answer.text()).toBe(PAGE);
  });

  it('sends a text/plain answer as text/plain, and keeps a JSON media type of a cut-off JSON answer', async () => {
    const api = await connectorAnswering(503, 'text/plain', 'upstream connect error');
    const plain = await postToProxy(api, 'vouchers/add', VOUCHER);
    expect(plain.status).toBe(503);
    expect(plain.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(plain.headers.get('content-disposition')).toBe('attachment');
    expect(await plain.text()).toBe('upstream connect error');
    await standIn.stop();
    const cut = await connectorAnswering(
      200,
      'Application/JSON; charset=iso-8859-1',
      '{"Vouchers":[{"Id":',
    );
    const answer = await postToProxy(cut, 'vouchers/add', VOUCHER);
    expect(answer.status).toBe(200);
    // The text was read and is sent as UTF-8: before, labelled with the connector's charset.
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await answer.text()).toBe('{"Vouchers":[{"Id":');
  });

  it('leaves call --via-bridge saying the bridge answered a body that is not JSON', async () => {
    const api = await connectorAnswering(200, 'text/html', PAGE);
    const failure = await callViaBridge(api, 'vouchers/add', VOUCHER, {}).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(CliExit);
    expect((failure as CliExit).code).toBe(1);
    expect((failure as Error).message).toBe(
      'vouchers/add: the bridge answered 200 with a body that is not JSON; the connector answered 200, so the write was applied: do not send it again',
    );
  });
});
