// On the embedded service the run's own servers stay reachable from its browsers whatever the egress
// policy: their hosts join the network.private_hosts of the browser a scenario creates.
import { describe, expect, it } from 'vitest';
import { hostOf, withLocalServers } from '../../runner/exec/local-servers.js';

describe('local servers in a create body', () => {
  it("adds the suite's and the scenario's server hosts to what the body lists, once each", () => {
    const body = { headless: true, network: { private_hosts: ['10.0.0.0/8'] } };
    const scope = { serve: { url: 'http://127.0.0.1:4100/' }, web_server: { url: 'http://192.168.1.5:3000' } };
    expect(withLocalServers(body, ['http://127.0.0.1:8080', 'http://[::1]:9000/'], scope)).toEqual({
      headless: true,
      network: { private_hosts: ['10.0.0.0/8', '127.0.0.1', '::1', '192.168.1.5'] },
    });
    expect(body.network.private_hosts).toEqual(['10.0.0.0/8']);
  });

  it('leaves a body alone when the run serves nothing, and starts one when there is none', () => {
    const body = { headless: true };
    expect(withLocalServers(body, [], {})).toBe(body);
    expect(withLocalServers(undefined, ['http://localhost:3000'], {})).toEqual({ network: { private_hosts: ['localhost'] } });
  });

  it('reads hosts off URLs, and nothing off what is not one', () => {
    expect(hostOf('http://[::1]:80/x')).toBe('::1');
    expect(hostOf('not a url')).toBeUndefined();
    expect(hostOf(undefined)).toBeUndefined();
  });
});
