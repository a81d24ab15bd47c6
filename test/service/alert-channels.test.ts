// Alert channels against real receivers: an HTTP server that records what it gets (and answers as told),
// and a real SMTP server. No clock, no sleep: time is injected (the signature's timestamp, Retry-After
// dates) and so is the wait between attempts, which the tests record instead of waiting.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Channel } from '../../src/service/host/monitors/alert.js';
import { allowAddressUnder, deliver, verifySignature, type Resolve } from '../../src/service/host/monitors/channels/index.js';
import { EgressPolicy, ServicePorts } from '../../src/service/host/network/index.js';
import { alertNetworksOf } from '../../src/service/index.js';
import { alert, checkAuth, deps, hosted, local, names, NOW_MS, NOW_S, readable, Receiver, smtpServer, type Seen } from './alert-channels-fixtures.js';
import { selfSignedCert } from './proxies-fixtures.js';

let rx: Receiver;
beforeAll(async () => {
  rx = await new Receiver().start();
});
afterEach(() => rx.reset());
afterAll(async () => {
  await rx?.close();
});

describe('webhook', () => {
  const SECRET = 'whsec_5up3r-s3cr3t-value';

  it('POSTs the alert as JSON, signed so the receiver can verify it, and refuses a tampered body or an old timestamp', async () => {
    const result = await deliver({ type: 'webhook', name: 'ops', url: rx.url(), secret: SECRET }, alert(), deps());
    expect(result).toEqual({ ok: true, attempts: 1 });
    expect(rx.seen).toHaveLength(1);
    const { headers, body } = rx.seen[0]!;
    expect(JSON.parse(body)).toEqual(alert());
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('bcs-monitor');
    expect(headers['x-bcs-alert-id']).toBe('alrt_1');
    const signature = headers['x-bcs-signature'] as string;
    expect(signature).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(signature).not.toContain(SECRET);

    expect(verifySignature(SECRET, signature, body, NOW_S)).toBe(true);
    expect(verifySignature(SECRET, signature, Buffer.from(body), NOW_S + 299)).toBe(true);
    expect(verifySignature(SECRET, signature, body.replace('Checkout', 'Checkoup'), NOW_S)).toBe(false);
    expect(verifySignature(SECRET, signature, body, NOW_S + 301)).toBe(false);
    expect(verifySignature(SECRET, signature, body, NOW_S - 301)).toBe(false);
    expect(verifySignature(SECRET, signature, body, NOW_S + 3600, 7200)).toBe(true);
    expect(verifySignature('another-secret', signature, body, NOW_S)).toBe(false);
    // The timestamp is signed too: moving it forward breaks the signature.
    expect(verifySignature(SECRET, signature.replace('t=1800000000', 't=1800000100'), body, NOW_S + 100)).toBe(false);
    expect(verifySignature(SECRET, undefined, body, NOW_S)).toBe(false);
    expect(verifySignature(SECRET, 't=1800000000,v1=zz', body, NOW_S)).toBe(false);
    expect(verifySignature(SECRET, `v1=${signature.split('v1=')[1]}`, body, NOW_S)).toBe(false);
    // Any v1 may match (a sender rotating secrets sends one per secret).
    expect(verifySignature(SECRET, `t=1800000000,v1=${'0'.repeat(64)},v1=${signature.split('v1=')[1]}`, body, NOW_S)).toBe(true);
  });

  it('sends no signature without a secret', async () => {
    expect(await deliver({ type: 'webhook', name: 'ops', url: rx.url() }, alert(), deps())).toEqual({ ok: true, attempts: 1 });
    expect(rx.seen[0]!.headers['x-bcs-signature']).toBeUndefined();
    expect(rx.seen[0]!.headers['x-bcs-alert-id']).toBe('alrt_1');
  });
});

describe('slack', () => {
  it('sends text and blocks: summary, check, status, the run, the screenshot as an image, the replay and the live view', async () => {
    const result = await deliver({ type: 'slack', name: 'team', url: rx.url('/services/T1/B2/abc') }, alert(), deps());
    expect(result).toEqual({ ok: true, attempts: 1 });
    const message = JSON.parse(rx.seen[0]!.body);
    expect(Object.keys(message).sort()).toEqual(['blocks', 'text']);
    expect(message.text).toBe("[FAILING] Checkout failing at click 'Pay' (2 runs) <https://bcs.example/console/runs/run_9|Open the run>");
    const blocks: any[] = message.blocks;
    expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: "[FAILING] Checkout failing at click 'Pay' (2 runs)" } });
    const fields = blocks[1].fields.map((f: { text: string }) => f.text);
    expect(fields).toContain('*Check*\nCheckout (suite shop, checkout.yaml)');
    expect(fields).toContain('*Status*\nfailing');
    // Everything from the alert is escaped: no mention, no forged link, no entity.
    const error = blocks.find((b) => b.text?.text.startsWith('*Error*'));
    expect(error.text.text).toBe('*Error*\nTimeout waiting for &lt;button id="pay"&gt; &amp; friends');
    expect(blocks).toContainEqual({ type: 'image', image_url: 'https://bcs.example/runs/run_9/artifacts/shot.png', alt_text: 'Screenshot of the failing step' });
    const links = blocks.find((b) => b.type === 'section' && b.text?.text.includes('<https://bcs.example/console/runs/run_9|Open the run>'));
    expect(links.text.text).toContain('<https://bcs.example/replays/rp_1?t=12.5&amp;marker=pay|Replay at the failing step>');
    expect(links.text.text).toContain('<https://bcs.example/live/ses_1|Live view of the kept browser (until 2026-11-28T02:00:00.000Z)>');
  });

  it('escapes &, < and > in everything the alert brings, and leaves out the image block without a screenshot', async () => {
    const a = alert({ summary: '<!channel> Checkout & <https://evil.example|login>', failure: { message: 'boom' } });
    await deliver({ type: 'slack', name: 'team', url: rx.url() }, a, deps());
    const message = JSON.parse(rx.seen[0]!.body);
    expect(message.text).toContain('&lt;!channel&gt; Checkout &amp; &lt;https://evil.example|login&gt;');
    expect(message.text).not.toContain('<!channel>');
    expect(message.blocks.some((b: { type: string }) => b.type === 'image')).toBe(false);
  });
});

describe('pagerduty', () => {
  const channel: Channel = { type: 'pagerduty', name: 'oncall', url: '', routing_key: 'R0UTINGKEY0123456789abcdef012345' };

  it('triggers with the check as dedup_key, then resolves the same incident on recovery', async () => {
    const pd = { ...channel, url: rx.url('/v2/enqueue') };
    rx.answer({ status: 202, body: '{"status":"success","dedup_key":"bcs-check-chk_checkout"}' });
    expect(await deliver(pd, alert({ summary: 'x'.repeat(2000) }), deps())).toEqual({ ok: true, attempts: 1 });
    expect(await deliver(pd, alert({ kind: 'degraded', status: 'degraded' }), deps())).toEqual({ ok: true, attempts: 1 });
    expect(await deliver(pd, alert({ kind: 'recovered', status: 'passing', failing_since: null, failure: undefined }), deps())).toEqual({ ok: true, attempts: 1 });
    const [trigger, degraded, resolve] = rx.seen.map((s) => JSON.parse(s.body));
    expect(trigger).toMatchObject({
      routing_key: 'R0UTINGKEY0123456789abcdef012345',
      event_action: 'trigger',
      dedup_key: 'bcs-check-chk_checkout',
      payload: { source: 'bcs.example', severity: 'critical', timestamp: '2026-11-28T01:05:00.000Z', component: 'Checkout', group: 'shop' },
    });
    expect(trigger.payload.summary).toHaveLength(1024);
    expect(trigger.payload.custom_details).toMatchObject({ failing_step: "click 'Pay'", run_id: 'run_9', consecutive_failures: 2 });
    expect(trigger.links).toContainEqual({ href: 'https://bcs.example/console/runs/run_9', text: 'Open the run' });
    expect(trigger.links).toContainEqual({ href: 'https://bcs.example/replays/rp_1?t=12.5&marker=pay', text: 'Replay at the failing step' });
    expect(trigger.images).toEqual([{ src: 'https://bcs.example/runs/run_9/artifacts/shot.png', href: 'https://bcs.example/console/runs/run_9', alt: 'Screenshot of the failing step' }]);
    expect(degraded.payload.severity).toBe('warning');
    expect(resolve).toEqual({ routing_key: 'R0UTINGKEY0123456789abcdef012345', event_action: 'resolve', dedup_key: 'bcs-check-chk_checkout' });
  });
});

describe('retries', () => {
  const hook = (url: string): Channel => ({ type: 'webhook', name: 'ops', url });

  it('retries a 503 after 1 s then 4 s, and counts the attempts', async () => {
    rx.answer({ status: 503 }, { status: 503 }, { status: 200 });
    const d = deps();
    expect(await deliver(hook(rx.url()), alert(), d)).toEqual({ ok: true, attempts: 3 });
    expect(d.slept).toEqual([1000, 4000]);
    expect(rx.seen).toHaveLength(3);
  });

  it('gives up after three attempts, saying the last answer', async () => {
    rx.answer({ status: 502, body: 'upstream\nbroken' });
    const d = deps();
    const result = await deliver(hook(rx.url()), alert(), d);
    expect(result).toEqual({ ok: false, attempts: 3, error: "alert channel 'ops' (webhook): http://127.0.0.1:" + rx.port + '/… answered 502 Bad Gateway: upstream broken (3 attempts)' });
    expect(d.slept).toEqual([1000, 4000]);
  });

  it('never retries another 4xx', async () => {
    rx.answer({ status: 400, body: '{"error":"invalid_payload"}' });
    const d = deps();
    const result = await deliver(hook(rx.url()), alert(), d);
    expect(result).toEqual({ ok: false, attempts: 1, error: expect.stringContaining('answered 400 Bad Request: {"error":"invalid_payload"}') });
    expect(d.slept).toEqual([]);
    expect(rx.seen).toHaveLength(1);
  });

  it('honours Retry-After on 429, in seconds or as a date, up to a cap', async () => {
    rx.answer({ status: 429, headers: { 'retry-after': '7' } }, { status: 200 });
    let d = deps();
    expect(await deliver(hook(rx.url()), alert(), d)).toEqual({ ok: true, attempts: 2 });
    expect(d.slept).toEqual([7000]);

    rx.answer({ status: 429, headers: { 'retry-after': new Date(NOW_MS + 12_000).toUTCString() } }, { status: 200 });
    d = deps();
    expect(await deliver(hook(rx.url()), alert(), d)).toEqual({ ok: true, attempts: 2 });
    expect(d.slept).toEqual([12_000]);

    rx.answer({ status: 503, headers: { 'retry-after': '3600' } }, { status: 200 });
    d = deps();
    expect(await deliver(hook(rx.url()), alert(), d)).toEqual({ ok: true, attempts: 2 });
    expect(d.slept).toEqual([30_000]);
  });

  it('bounds each attempt: a receiver that never answers times out, and is retried', async () => {
    rx.answer('hang');
    const d = deps({ timeoutMs: 100 });
    const result = await deliver(hook(rx.url()), alert(), d);
    expect(result).toEqual({ ok: false, attempts: 3, error: `alert channel 'ops' (webhook): http://127.0.0.1:${rx.port}/… did not answer within 100 ms (3 attempts)` });
    expect(d.slept).toEqual([1000, 4000]);
    expect(rx.seen).toHaveLength(3);
  });

  it('retries a refused connection, and says so', async () => {
    const gone = await new Receiver().start();
    const url = gone.url();
    await gone.close();
    const d = deps();
    const result = await deliver(hook(url), alert(), d);
    expect(result).toMatchObject({ ok: false, attempts: 3 });
    expect(result.ok || result.error).toMatch(/^alert channel 'ops' \(webhook\): could not reach http:\/\/127\.0\.0\.1:\d+\/…: connect ECONNREFUSED 127\.0\.0\.1:\d+ \(3 attempts\)$/);
  });

  it('never throws, whatever the channel', async () => {
    const bad = [
      { type: 'webhook', name: 'ops', url: 'not a url' },
      { type: 'webhook', name: 'ops', url: 'file:///etc/passwd' },
      { type: 'carrier-pigeon', name: 'coo' },
      { type: 'email', name: 'mail', smtp: { host: '127.0.0.1', port: 1, secure: false }, from: 'a@b.example', to: [] },
    ] as unknown as Channel[];
    const results = await Promise.all(bad.map((c) => deliver(c, alert(), deps())));
    expect(results.map((r) => (r.ok ? 'ok' : r.error))).toEqual([
      "alert channel 'ops' (webhook): the URL is not a valid URL",
      "alert channel 'ops' (webhook): file:///… is not an http(s) URL",
      "alert channel 'coo' (carrier-pigeon): unknown channel type 'carrier-pigeon'",
      "alert channel 'mail' (email): the channel has no recipients",
    ]);
  });
});

describe('egress guard', () => {
  const hook = (url: string): Channel => ({ type: 'webhook', name: 'ops', url });

  it('refuses a destination the policy does not allow, before connecting, and does not retry', async () => {
    const d = deps({ allowAddress: () => false });
    expect(await deliver(hook(rx.url()), alert(), d)).toEqual({
      ok: false,
      attempts: 1,
      error: "alert channel 'ops' (webhook): destination 127.0.0.1 is not allowed by the service's network policy",
    });
    expect(await deliver(hook(rx.url()), alert(), deps({ allowAddress: hosted }))).toMatchObject({ ok: false, attempts: 1 });
    expect(rx.seen).toEqual([]);
  });

  it('checks the address a name resolves to: a name for 127.0.0.1 is refused under the hosted policy', async () => {
    const resolve = names({ 'hooks.example.test': ['127.0.0.1'] });
    const url = `http://hooks.example.test:${rx.port}/hook`;
    expect(await deliver(hook(url), alert(), deps({ allowAddress: hosted, resolve }))).toEqual({
      ok: false,
      attempts: 1,
      error: "alert channel 'ops' (webhook): destination 127.0.0.1 is not allowed by the service's network policy",
    });
    expect(rx.seen).toEqual([]);
    // The same name under the local-development policy reaches the receiver: the lookup is the one connected with.
    expect(await deliver(hook(url), alert(), deps({ allowAddress: local, resolve }))).toEqual({ ok: true, attempts: 1 });
    expect(rx.seen[0]!.headers.host).toBe(`hooks.example.test:${rx.port}`);
    // Resolved once per attempt, at connect time: no separate check that a second lookup could contradict.
    expect(resolve.calls).toEqual(['hooks.example.test', 'hooks.example.test']);
    // The system resolver too: localhost is loopback.
    const viaSystem = await deliver(hook(`http://localhost:${rx.port}/hook`), alert(), deps({ allowAddress: hosted }));
    expect(viaSystem.ok || viaSystem.error).toMatch(/^alert channel 'ops' \(webhook\): destination (127\.0\.0\.1|::1) is not allowed by the service's network policy$/);
  });

  it('reaches a private network the operator allows for alerts (--alert-private-networks), under the hosted policy', async () => {
    const resolve = names({ 'alertmanager.internal': ['127.0.0.1'] });
    const url = `http://alertmanager.internal:${rx.port}/hook`;
    const allowed = allowAddressUnder(new EgressPolicy('hosted', new ServicePorts()), alertNetworksOf(['127.0.0.0/30']));
    expect(await deliver(hook(url), alert(), deps({ allowAddress: allowed, resolve }))).toEqual({ ok: true, attempts: 1 });
    const other = allowAddressUnder(new EgressPolicy('hosted', new ServicePorts()), alertNetworksOf(['10.0.0.0/8', '192.168.1.5']));
    expect(await deliver(hook(url), alert(), deps({ allowAddress: other, resolve }))).toMatchObject({ ok: false, attempts: 1 });
    // Names are not taken: the check is on the address connected to.
    expect(() => alertNetworksOf(['alertmanager.internal'])).toThrow(/not an address or a range/);
    expect(() => alertNetworksOf(['10.0.0.0/33'])).toThrow(/not an address or a range/);
  });

  it('connects to the address it checked: a name that rebinds between attempts never reaches the refused address', async () => {
    // The policy here allows 127.0.0.2 (nothing listens there) and refuses 127.0.0.1 (the receiver).
    const allowAddress = (ip: string) => ip === '127.0.0.2';
    const answers = [['127.0.0.2'], ['127.0.0.1']];
    const calls: string[] = [];
    const resolve: Resolve = async (host) => {
      calls.push(host);
      return (answers.shift() ?? ['127.0.0.1']).map((address) => ({ address, family: 4 as const }));
    };
    const result = await deliver(hook(`http://rebind.example.test:${rx.port}/hook`), alert(), deps({ allowAddress, resolve }));
    expect(result).toEqual({ ok: false, attempts: 2, error: "alert channel 'ops' (webhook): destination 127.0.0.1 is not allowed by the service's network policy (2 attempts)" });
    expect(calls).toEqual(['rebind.example.test', 'rebind.example.test']);
    expect(rx.seen).toEqual([]);
  });
});

describe('email', () => {
  const PASSWORD = 'smtp-pa55word-n0t-to-leak';
  const mailChannel = (port: number, smtp: Partial<Extract<Channel, { type: 'email' }>['smtp']> = {}): Channel => ({
    type: 'email',
    name: 'mail',
    smtp: { host: '127.0.0.1', port, secure: false, ...smtp },
    from: 'bcs@monitor.example',
    to: ['oncall@shop.example', 'lead@shop.example'],
  });

  it('sends a text and an HTML body with the links, everything from the alert escaped', async () => {
    const server = await smtpServer({ hideSTARTTLS: true, authOptional: true });
    try {
      expect(await deliver(mailChannel(server.port), alert(), deps())).toEqual({ ok: true, attempts: 1 });
      const [mail] = server.mails;
      expect(mail).toMatchObject({ from: 'bcs@monitor.example', to: ['oncall@shop.example', 'lead@shop.example'] });
      const text = readable(mail!.raw);
      expect(text).toContain("Subject: [FAILING] Checkout failing at click 'Pay' (2 runs)");
      expect(text).toMatch(/^X-Bcs-Alert-Id: alrt_1$/im);
      expect(text).toMatch(/Content-Type: text\/plain[\s\S]*Open the run: https:\/\/bcs\.example\/console\/runs\/run_9/);
      expect(text).toContain('Replay at the failing step: https://bcs.example/replays/rp_1?t=12.5&marker=pay');
      expect(text).toContain('Live view of the kept browser (until 2026-11-28T02:00:00.000Z): https://bcs.example/live/ses_1');
      expect(text).toContain('Error: Timeout waiting for <button id="pay"> & friends');
      const html = text.slice(text.indexOf('Content-Type: text/html'));
      expect(html).toContain('<a href="https://bcs.example/replays/rp_1?t=12.5&amp;marker=pay">Replay at the failing step</a>');
      expect(html).toContain('<img src="https://bcs.example/runs/run_9/artifacts/shot.png"');
      expect(html).toContain('Timeout waiting for &lt;button id=&quot;pay&quot;&gt; &amp; friends');
      expect(html).not.toContain('<button');
    } finally {
      await server.close();
    }
  });

  it('never sends a password without TLS: a server without STARTTLS is refused before AUTH', async () => {
    let authTried = false;
    const server = await smtpServer({ disabledCommands: ['STARTTLS'], allowInsecureAuth: true, onAuth: (_a, _s, cb) => ((authTried = true), cb(null, { user: 'x' })) });
    try {
      const result = await deliver(mailChannel(server.port, { user: 'alerts', password: PASSWORD }), alert(), deps());
      expect(result).toMatchObject({ ok: false, attempts: 1 });
      expect(result.ok || result.error).toMatch(/^alert channel 'mail' \(email\): smtp:\/\/127\.0\.0\.1:\d+ does not offer STARTTLS, and the password is not sent without TLS/);
      expect(JSON.stringify(result)).not.toContain(PASSWORD);
      expect(authTried).toBe(false);
      expect(server.mails).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('refuses a server whose name resolves to a refused address, without connecting', async () => {
    const server = await smtpServer({ hideSTARTTLS: true, authOptional: true });
    try {
      const resolve = names({ 'mail.example.test': ['127.0.0.1'] });
      const result = await deliver(mailChannel(server.port, { host: 'mail.example.test' }), alert(), deps({ allowAddress: hosted, resolve }));
      expect(result).toEqual({ ok: false, attempts: 1, error: "alert channel 'mail' (email): destination 127.0.0.1 is not allowed by the service's network policy" });
      expect(server.connections()).toBe(0);
    } finally {
      await server.close();
    }
  });

  const tls = selfSignedCert(['mail.example.test']);

  describe.skipIf(!tls)('over TLS (a certificate for mail.example.test; the name resolved by the test)', () => {
    const resolve = names({ 'mail.example.test': ['127.0.0.1'] });

    it('STARTTLS with authentication: the certificate is checked for the name while connecting to the address', async () => {
      const server = await smtpServer({ key: tls!.key, cert: tls!.cert, onAuth: checkAuth('alerts', PASSWORD) });
      try {
        const channel = mailChannel(server.port, { host: 'mail.example.test', user: 'alerts', password: PASSWORD });
        expect(await deliver(channel, alert(), deps({ resolve, ca: tls!.cert }))).toEqual({ ok: true, attempts: 1 });
        expect(server.mails[0]).toMatchObject({ secure: true, user: 'alerts' });
        expect(readable(server.mails[0]!.raw)).toContain('Subject: [FAILING] Checkout');
        // Without trusting the certificate the upgrade fails, and that is not retried.
        const untrusted = await deliver(channel, alert(), deps({ resolve }));
        expect(untrusted).toMatchObject({ ok: false, attempts: 1 });
        expect(untrusted.ok || untrusted.error).toMatch(/TLS/);
      } finally {
        await server.close();
      }
    });

    it('implicit TLS (secure)', async () => {
      const server = await smtpServer({ secure: true, key: tls!.key, cert: tls!.cert, onAuth: checkAuth('alerts', PASSWORD) });
      try {
        const channel = mailChannel(server.port, { host: 'mail.example.test', secure: true, user: 'alerts', password: PASSWORD });
        expect(await deliver(channel, alert({ kind: 'recovered', status: 'passing', summary: 'Checkout passes again' }), deps({ resolve, ca: tls!.cert }))).toEqual({ ok: true, attempts: 1 });
        expect(server.mails[0]).toMatchObject({ secure: true, user: 'alerts' });
        expect(readable(server.mails[0]!.raw)).toContain('Subject: [RECOVERED] Checkout passes again');
      } finally {
        await server.close();
      }
    });

    it('a wrong password is an authentication failure, not retried, and the password is nowhere in it', async () => {
      const server = await smtpServer({ key: tls!.key, cert: tls!.cert, onAuth: checkAuth('alerts', 'the-right-one') });
      try {
        const channel = mailChannel(server.port, { host: 'mail.example.test', user: 'alerts', password: PASSWORD });
        const result = await deliver(channel, alert(), deps({ resolve, ca: tls!.cert }));
        expect(result).toMatchObject({ ok: false, attempts: 1 });
        expect(result.ok || result.error).toMatch(/^alert channel 'mail' \(email\): smtp:\/\/mail\.example\.test:\d+: authentication failed: .*535/);
        expect(JSON.stringify(result)).not.toContain(PASSWORD);
      } finally {
        await server.close();
      }
    });
  });
});

describe('secrets', () => {
  it('appear in no error, even when a receiver echoes the request back', async () => {
    const secrets = {
      webhook: 'whsec_never-show-this-1234',
      query: 'qtok_abcdef123456',
      slack: 'xoxbSecretTokenPart0123456789',
      routing: 'R0UTING-never-show-this-5678',
    };
    // Echoes what it got, URL, signature header and body, in a 400 (not retried) or a 503 (retried).
    const echo = (status: number) => (seen: Seen) => ({ status, body: `${seen.url} ${seen.headers['x-bcs-signature'] ?? ''} ${seen.body}` });
    const channels: Channel[] = [
      { type: 'webhook', name: 'ops', url: rx.url(`/hook?token=${secrets.query}`), secret: secrets.webhook },
      { type: 'slack', name: 'team', url: rx.url(`/services/T0AAAAAAA/B0BBBBBBB/${secrets.slack}`) },
      { type: 'pagerduty', name: 'oncall', url: rx.url('/v2/enqueue'), routing_key: secrets.routing },
    ];
    const errors: string[] = [];
    for (const status of [400, 503]) {
      rx.answer(echo(status));
      for (const channel of channels) {
        const result = await deliver(channel, alert(), deps());
        expect(result.ok).toBe(false);
        if (!result.ok) errors.push(result.error);
      }
    }
    for (const channel of channels) {
      const refused = await deliver(channel, alert(), deps({ allowAddress: () => false }));
      if (!refused.ok) errors.push(refused.error);
      const timedOut = await (rx.answer('hang'), deliver(channel, alert(), deps({ timeoutMs: 50 })));
      if (!timedOut.ok) errors.push(timedOut.error);
    }
    expect(errors).toHaveLength(12);
    // The echo did reach the error text, with the secrets taken out.
    expect(errors.filter((e) => e.includes('[redacted]')).length).toBeGreaterThanOrEqual(6);
    for (const error of errors) {
      for (const secret of Object.values(secrets)) expect(error).not.toContain(secret);
      expect(error).not.toContain('T0AAAAAAA/B0BBBBBBB');
    }
  });

  it('are taken out before an answer is cut short, so not even half of one is left', async () => {
    const key = 'R0UTING-cut-in-half-0123456789';
    rx.answer({ status: 400, body: `${'x'.repeat(185)} ${key} ${'y'.repeat(50)}` });
    const result = await deliver({ type: 'pagerduty', name: 'oncall', url: rx.url('/v2/enqueue'), routing_key: key }, alert(), deps());
    expect(result).toMatchObject({ ok: false, attempts: 1 });
    expect(result.ok || result.error).toContain(`${'x'.repeat(185)} [redacted] y`);
    expect(result.ok || result.error).not.toContain('R0UTING');
  });
});
