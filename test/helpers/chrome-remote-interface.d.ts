// chrome-remote-interface ships no types: the part of its API the discovery tests use (lib/chrome.js,
// lib/devtools.js of 0.34).
declare module 'chrome-remote-interface' {
  interface Options {
    host?: string;
    port?: number;
    secure?: boolean;
    useHostName?: boolean;
    /** Applied to every discovery path and to the pathname of the WebSocket URL it connects to. */
    alterPath?: (path: string) => string;
    target?: string | object | ((targets: Target[]) => Target | number);
    local?: boolean;
  }
  interface Target {
    id: string;
    type: string;
    url: string;
    title?: string;
    webSocketDebuggerUrl?: string;
    devtoolsFrontendUrl?: string;
  }
  interface Client {
    webSocketUrl: string;
    send(method: string, params?: object): Promise<any>;
    close(): Promise<void>;
  }
  interface CDP {
    (options?: Options): Promise<Client>;
    Version(options?: Options): Promise<Record<string, string>>;
    List(options?: Options): Promise<Target[]>;
    Protocol(options?: Options): Promise<{ version: object; domains: object[] }>;
  }
  const CDP: CDP;
  export default CDP;
}
