// One line that says how sessions are kept apart from the host and from each other, for banners, logs
// and the runner's start line: it names what actually holds, never more.
import type { Sandbox } from './sandbox.js';

export function describeIsolation(sandbox: Sandbox | null, sandboxReason: string, serviceUid = process.getuid?.() ?? -1): string {
  if (sandbox?.privileged) {
    return `sandboxed (${sandboxReason}): Chromium and processes run as '${sandbox.kernel.name}' (uid ${sandbox.kernel.uid}) in bubblewrap; as_root is root without host-wide capabilities; ${describeNetwork(sandbox)}`;
  }
  if (sandbox) {
    return `sandboxed (${sandboxReason}): everything runs as the service's own user inside bubblewrap's user namespace; as_root and as_user are refused; ${describeNetwork(sandbox)}`;
  }
  if (serviceUid === 0) {
    return `unsandboxed (${sandboxReason}): each session runs as a uid of its own and sees the host's files as that uid does; as_root and other users are refused; ${SHARED_NETWORK}`;
  }
  return `unsandboxed (${sandboxReason}): sessions run as the service's own user and can read and change whatever it can; ${SHARED_NETWORK}`;
}

const SHARED_NETWORK = "sessions share the host's network: only the browser's own traffic is held to the egress policy, processes reach what the host reaches";

function describeNetwork(sandbox: Sandbox): string {
  return sandbox.network ? 'each session has a network of its own whose only way out is its egress proxy' : `${SHARED_NETWORK} (${sandbox.networkReason})`;
}
