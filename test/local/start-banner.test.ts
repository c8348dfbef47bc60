import { describe, expect, it } from 'vitest';
import { type BannerFacts, startBanner, startedFields } from '../../shared/local/start-banner.ts';

const facts: BannerFacts = {
  adminUrl: 'http://127.0.0.1:4000',
  simulatorUrl: 'http://127.0.0.1:4010',
  demoReceiverUrl: undefined,
  productSamples: [],
  localStreams: 13,
  localEntityTypes: ['customer', 'resource'],
  storedConnections: 0,
  storedStreams: 0,
  pollIntervalMs: 5000,
  dataDir: '.bridge',
  demoReceiver: false,
  allowPrivate: true,
  subscriptions: 0,
};

describe('the banner of change-bridge start', () => {
  it('names the admin API, the console, what is polled and where data is kept', () => {
    const lines = startBanner(facts);
    expect(lines).toContain(
      '  admin API      http://127.0.0.1:4000  (http://127.0.0.1:4000/openapi.json)',
    );
    expect(lines).toContain('  console        http://127.0.0.1:4000/');
    expect(lines).toContain('  polling        13 streams every 5s');
    expect(lines).toContain('  data           .bridge/');
    expect(lines).toContain(
      '  npx change-bridge subscriptions add --url http://127.0.0.1:9000/hook',
    );
  });

  it('names the entity types polled, wrapped under their label when they are many', () => {
    expect(startBanner(facts)).toContain('  entities       customer, resource');
    const many = [
      'customer',
      'resource',
      'reservation',
      'reservationGroup',
      'company',
      'accountNote',
      'loyaltyMembership',
      'loyaltyProgram',
      'productCategory',
      'billingAutomation',
    ];
    const lines = startBanner({ ...facts, localEntityTypes: many }).filter((line) =>
      /^ {2}(entities| {8}) {7}\S/.test(line),
    );
    expect(lines).toEqual([
      '  entities       customer, resource, reservation, reservationGroup, company, accountNote,',
      '                 loyaltyMembership, loyaltyProgram, productCategory, billingAutomation',
    ]);
    expect(lines.every((line) => line.length <= 17 + 72)).toBe(true);
  });

  it('counts the connections added at run time beside the local one', () => {
    const lines = startBanner({ ...facts, storedConnections: 2, storedStreams: 26 });
    expect(lines).toContain(
      '  polling        13 streams every 5s; 26 streams of 2 stored connections',
    );
    const one = startBanner({ ...facts, storedConnections: 1, storedStreams: 1 });
    expect(one).toContain('  polling        13 streams every 5s; 1 stream of 1 stored connection');
  });

  it('names the connector instead of the simulator, and the demo receiver when it runs', () => {
    const lines = startBanner({
      ...facts,
      simulatorUrl: undefined,
      demoReceiverUrl: 'http://127.0.0.1:4001',
      demoReceiver: true,
    });
    expect(lines).toContain('  connector      CONNECTOR_BASE_URL');
    const named = startBanner({
      ...facts,
      simulatorUrl: undefined,
      connectorUrl: 'https://user:secret@connector.example.com/api?token=secret',
    });
    expect(named).toContain('  connector      https://connector.example.com/api');
    expect(lines.join('\n')).toContain('demo receiver  http://127.0.0.1:4001');
    expect(lines.join('\n')).not.toContain('subscriptions add');
  });

  it('subscribes through --api when the bridge is not where the admin commands go by default, and over https when private addresses are refused', () => {
    const elsewhere = startBanner({ ...facts, adminUrl: 'http://127.0.0.1:4100' });
    expect(elsewhere).toContain(
      '  npx change-bridge subscriptions add --url http://127.0.0.1:9000/hook --api http://127.0.0.1:4100',
    );
    const strict = startBanner({ ...facts, allowPrivate: false });
    expect(strict).toContain(
      '  npx change-bridge subscriptions add --url https://receiver.example.com/hook',
    );
  });
});

describe('the banner of change-bridge start on a data dir with subscriptions', () => {
  it('says how many subscriptions webhooks go to instead of suggesting subscriptions add', () => {
    // Before, a restart of a data dir with subscriptions still said "Send webhooks to your endpoint: … subscriptions add".
    const lines = startBanner({ ...facts, subscriptions: 2 });
    expect(lines.some((line) => line.includes('subscriptions add'))).toBe(false);
    expect(lines).not.toContain('Send webhooks to your endpoint:');
    expect(lines).toContain('Webhooks go to 2 subscriptions: npx change-bridge subscriptions list');
    expect(
      startBanner({ ...facts, subscriptions: 1, adminUrl: 'http://127.0.0.1:4100' }),
    ).toContain(
      'Webhooks go to 1 subscription: npx change-bridge subscriptions list --api http://127.0.0.1:4100',
    );
  });
});

describe('the started line of change-bridge start --json', () => {
  const bridge = {
    adminUrl: 'http://127.0.0.1:4000',
    simulatorUrl: undefined,
    demoReceiverUrl: undefined,
    productSamples: [],
    streams: 11,
    entityTypes: ['customer', 'customer', 'resource'],
    storedConnections: [],
    requeuedDeliveries: 0,
    subscriptions: 0,
  };

  it('names the connector it polls, as the banner does, without credentials or a query', () => {
    const fields = startedFields({
      ...bridge,
      connectorUrl: 'https://user:secret@connector.example.com/api?token=secret',
      dataDir: '.bridge',
      pollIntervalMs: 5000,
    });
    expect(fields).toMatchObject({
      connector: 'https://connector.example.com/api',
      simulator: undefined,
      admin: 'http://127.0.0.1:4000',
      streams: 11,
      entityTypes: ['customer', 'resource'],
      pollIntervalMs: 5000,
    });
    expect(JSON.stringify(fields)).not.toContain('secret');
  });

  it('names no connector when the built-in simulator is polled', () => {
    const fields = startedFields({
      ...bridge,
      simulatorUrl: 'http://127.0.0.1:4010',
      connectorUrl: undefined,
      dataDir: '.bridge',
      pollIntervalMs: 5000,
    });
    expect(fields.connector).toBeUndefined();
    expect(fields.simulator).toBe('http://127.0.0.1:4010');
  });
});
