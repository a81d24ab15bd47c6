// The pure parts of CDP discovery: reading CDP paths (token in the path or not), moving a path token into
// the query for the HTTP router, and rewriting Chromium's documents (both kinds of frontend URL it gives).
import { describe, expect, it } from 'vitest';
import { rewriteDiscovery, type ProxyAddress } from '../../src/service/host/session/cdp-discovery.js';
import { cdpTokenToQuery, devtoolsTargetPath, parseCdpPath } from '../../src/service/host/session/cdp-paths.js';

const address: ProxyAddress = {
  webSocketUrl: (path) => `ws://svc.test:8080/browsers/b1/cdp${path}?jwt=T0K`,
  frontendParam: (path) => ({ name: 'ws', value: `svc.test:8080/browsers/b1/cdp/jwt/T0K${path}` }),
};

describe('CDP paths', () => {
  it('reads the session, a path token and what follows', () => {
    expect(parseCdpPath('/browsers/b1/cdp')).toEqual({ sessionId: 'b1', pathToken: undefined, rest: '' });
    expect(parseCdpPath('/browsers/b%201/cdp/')).toEqual({ sessionId: 'b 1', pathToken: undefined, rest: '/' });
    expect(parseCdpPath('/browsers/b1/cdp/jwt/abc_-/devtools/page/AB12')).toEqual({ sessionId: 'b1', pathToken: 'abc_-', rest: '/devtools/page/AB12' });
    expect(parseCdpPath('/browsers/cdp/cdp/json/version')).toEqual({ sessionId: 'cdp', pathToken: undefined, rest: '/json/version' });
    expect(parseCdpPath('/browsers/b1/cdpx')).toBeUndefined();
    expect(parseCdpPath('/browsers/%E0%A4%A/cdp')).toBeUndefined();
  });

  it('knows which rests are WebSocket targets', () => {
    expect(devtoolsTargetPath('')).toBeNull();
    expect(devtoolsTargetPath('/')).toBeNull();
    expect(devtoolsTargetPath('/devtools/page/AB12')).toBe('/devtools/page/AB12');
    expect(devtoolsTargetPath('/devtools/browser/2081838d-20bd-4dbf-a9bb-ce93956c9c15')).toBe('/devtools/browser/2081838d-20bd-4dbf-a9bb-ce93956c9c15');
    for (const rest of ['/json/version', '/devtools/inspector.html', '/devtools/page/../browser/x', '/devtools/page/a/b']) expect(devtoolsTargetPath(rest), rest).toBeUndefined();
  });

  it('moves a path token into the query and drops a discovery path’s trailing slash; leaves the rest alone', () => {
    expect(cdpTokenToQuery('/browsers/b1/cdp/jwt/T0K/json/version')).toBe('/browsers/b1/cdp/json/version?jwt=T0K');
    expect(cdpTokenToQuery('/browsers/b1/cdp/jwt/T0K/json/version/?x=1')).toBe('/browsers/b1/cdp/json/version?jwt=T0K&x=1');
    expect(cdpTokenToQuery('/browsers/b1/cdp/json/version/?jwt=T0K')).toBe('/browsers/b1/cdp/json/version?jwt=T0K');
    expect(cdpTokenToQuery('/browsers/b1/cdp/json/?jwt=T0K')).toBe('/browsers/b1/cdp/json?jwt=T0K');
    expect(cdpTokenToQuery('/browsers/b1/cdp/jwt/a%26jwt%3Db/json')).toBe('/browsers/b1/cdp/json?jwt=a%26jwt%3Db');
    expect(cdpTokenToQuery('/browsers/cdp/cdp/jwt/T0K')).toBe('/browsers/cdp/cdp?jwt=T0K');
    for (const url of ['/browsers/b1/cdp/json/version?jwt=T0K', '/browsers/b1', '/org/limits?x=/cdp/jwt/y', '/browsers/b1/cdp/devtools/page/X/']) {
      expect(cdpTokenToQuery(url), url).toBe(url);
    }
  });
});

describe('rewriting Chromium’s documents', () => {
  const chromium = '127.0.0.1:40227';

  it('points the version’s browser WebSocket at the proxy', () => {
    const version = JSON.stringify({ Browser: 'Chrome/156', 'Protocol-Version': '1.3', webSocketDebuggerUrl: `ws://${chromium}/devtools/browser/ab-12` });
    expect(rewriteDiscovery('version', version, address)).toEqual({
      Browser: 'Chrome/156',
      'Protocol-Version': '1.3',
      webSocketDebuggerUrl: 'ws://svc.test:8080/browsers/b1/cdp/devtools/browser/ab-12?jwt=T0K',
    });
  });

  it('points each target’s WebSocket and frontend at the proxy; the bundled frontend becomes devtools://', () => {
    const list = JSON.stringify([
      {
        id: 'P1',
        type: 'page',
        url: `http://${chromium}/json`,
        webSocketDebuggerUrl: `ws://${chromium}/devtools/page/P1`,
        devtoolsFrontendUrl: `https://chrome-devtools-frontend.appspot.com/serve_rev/@730482a9/inspector.html?ws=${chromium}/devtools/page/P1`,
      },
      { id: 'P2', type: 'page', url: 'about:blank', webSocketDebuggerUrl: `ws://${chromium}/devtools/page/P2`, devtoolsFrontendUrl: `/devtools/inspector.html?ws=${chromium}/devtools/page/P2` },
      { id: 'W', type: 'worker', url: 'x', webSocketDebuggerUrl: `ws://${chromium}/somewhere/else`, devtoolsFrontendUrl: 'https://frontend.test/inspector.html' },
    ]);
    expect(rewriteDiscovery('list', list, address)).toEqual([
      {
        id: 'P1',
        type: 'page',
        // A page's own URL is the page's business: left as it is.
        url: `http://${chromium}/json`,
        webSocketDebuggerUrl: 'ws://svc.test:8080/browsers/b1/cdp/devtools/page/P1?jwt=T0K',
        devtoolsFrontendUrl: 'https://chrome-devtools-frontend.appspot.com/serve_rev/@730482a9/inspector.html?ws=svc.test:8080/browsers/b1/cdp/jwt/T0K/devtools/page/P1',
      },
      {
        id: 'P2',
        type: 'page',
        url: 'about:blank',
        webSocketDebuggerUrl: 'ws://svc.test:8080/browsers/b1/cdp/devtools/page/P2?jwt=T0K',
        devtoolsFrontendUrl: 'devtools://devtools/bundled/inspector.html?ws=svc.test:8080/browsers/b1/cdp/jwt/T0K/devtools/page/P2',
      },
      // Addresses the proxy does not serve are left out, never handed on.
      { id: 'W', type: 'worker', url: 'x' },
    ]);
  });

  it('answers a document that is not JSON as an unreachable browser, without its text', () => {
    expect(() => rewriteDiscovery('list', '<html>oops at 127.0.0.1:40227</html>', address)).toThrow(
      expect.objectContaining({ kind: 'unavailable', code: 'browser_unreachable', message: expect.not.stringContaining('40227') }),
    );
  });
});
