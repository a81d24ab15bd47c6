// The committed deployment files: the Kubernetes YAML is exactly what deploy/kubernetes/generate.ts writes
// (nobody edits it by hand), every document in it passes its kind's schema, and what the cluster depends on
// holds in it (docs/cluster.md): hosts outlive their drain, Chromium has a real /dev/shm, only the API
// replicas reach a host, keys come from Secrets as files or secret references and never sit in an argument,
// probes are `bcs probe`, nothing runs as root, only hosts hold a Kubernetes API token and it patches pods
// alone; the systemd units stop no later than their drain.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  API_PORT,
  DEMAND_QUERY,
  HOST_PORT,
  HOST_SERVICE_ACCOUNT,
  KEYS_DIR,
  MEASURED,
  PLACEHOLDER,
  SECRET_DATABASE,
  SECRET_KEYS,
  apiLabels,
  defaultOptions,
  hostLabels,
  hostMemoryMiB,
  manifests,
} from '../../deploy/kubernetes/generate.js';

const ROOT = join(import.meta.dirname, '..', '..');
const K8S = join(ROOT, 'deploy', 'kubernetes');
const SYSTEMD = join(ROOT, 'deploy', 'systemd');

/** Each kind the files may hold, with the class whose schema it must pass. */
const KINDS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'keda.sh/v1alpha1/TriggerAuthentication': TriggerAuthentication,
};

interface Doc {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  stringData?: Record<string, string>;
  [key: string]: unknown;
}

async function committedDocs(): Promise<Doc[]> {
  const docs: Doc[] = [];
  for (const file of (await readdir(K8S)).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of parseAllDocuments(await readFile(join(K8S, file), 'utf8'))) {
      expect(doc.errors, file).toEqual([]);
      const value = doc.toJS() as Doc | null;
      if (value) docs.push({ ...value, file });
    }
  }
  return docs;
}

const find = (docs: Doc[], kind: string, name: string): Doc => {
  const doc = docs.find((d) => d.kind === kind && d.metadata.name === name);
  if (!doc) throw new Error(`no ${kind} ${name}`);
  return doc;
};
/** A document's spec, as its kind's model types it (the schema check above vouches for the shape). */
const specOf = <T>(doc: Doc): T => doc.spec as unknown as T;
const podSpec = (deployment: Doc) => specOf<{ template: { spec: IPodSpec } }>(deployment).template.spec;
const only = <T>(items: T[] | undefined): T => {
  expect(items).toHaveLength(1);
  return items![0]!;
};
/** The value after `flag` in an argument list. */
const flagValue = (args: string[], flag: string): string | undefined => {
  const i = args.indexOf(flag);
  return i < 0 ? undefined : args[i + 1];
};
const sameLabels = (a: Record<string, string> | undefined, b: Record<string, string>) => expect(a).toEqual(b);

describe('deploy/kubernetes', () => {
  it('holds exactly what generate.ts writes (run `npm run deploy:generate` after changing it)', async () => {
    const generated = manifests();
    const committed = (await readdir(K8S)).filter((f) => f.endsWith('.yaml')).sort();
    expect(committed).toEqual(generated.map((f) => f.file).sort());
    for (const f of generated) expect(await readFile(join(K8S, f.file), 'utf8'), f.file).toBe(f.text);
  });

  it('passes every document through the schema of its kind', async () => {
    const docs = await committedDocs();
    expect(docs.length).toBeGreaterThan(10);
    for (const { file, ...doc } of docs) {
      const Kind = KINDS[`${doc.apiVersion}/${doc.kind}`];
      expect(Kind, `${file}: ${doc.apiVersion} ${doc.kind}`).toBeDefined();
      expect(() => new Kind!(doc as never).validate(), `${file}: ${doc.kind} ${doc.metadata.name}`).not.toThrow();
      if (doc.kind !== 'Namespace') expect(doc.metadata.namespace, `${doc.kind} ${doc.metadata.name}`).toBe(defaultOptions.namespace);
    }
  });

  it('refuses a document that breaks its schema, so the check above can fail', () => {
    expect(() => new Deployment({ metadata: { name: 'x' }, spec: { selector: {}, template: { spec: { containers: [{ name: 'c', image: 5 as never }] } } } }).validate()).toThrow();
  });

  it('gives a host longer to stop than its drain, and Chromium a memory-backed /dev/shm', async () => {
    const docs = await committedDocs();
    const spec = podSpec(find(docs, 'Deployment', 'bcs-host'));
    const host = only(spec.containers);
    const drain = Number(flagValue(host.args!, '--drain-seconds'));
    expect(drain).toBe(defaultOptions.drainSeconds);
    expect(spec.terminationGracePeriodSeconds).toBeGreaterThan(drain);
    const shm = host.volumeMounts!.find((m) => m.mountPath === '/dev/shm');
    expect(shm).toBeDefined();
    expect(spec.volumes!.find((v) => v.name === shm!.name)?.emptyDir?.medium).toBe('Memory');
  });

  it('runs the roles as the CLI contract says, a host advertising its pod IP and its blobs on a shared volume', async () => {
    const docs = await committedDocs();
    const api = only(podSpec(find(docs, 'Deployment', 'bcs-api')).containers);
    expect(api.args!.slice(0, 3)).toEqual(['serve', '--role', 'api']);
    expect(flagValue(api.args!, '--port')).toBe(String(API_PORT));
    expect(flagValue(api.args!, '--host')).toBe('0.0.0.0');
    expect(api.env!.find((e) => e.name === 'BCS_PUBLIC_URL')?.value).toBe(defaultOptions.publicUrl);
    expect(api.env!.map((e) => e.name).sort()).toEqual(['BCS_CLUSTER_KEY_FILE', 'BCS_DATABASE_URL', 'BCS_PUBLIC_URL']);

    const hostSpec = podSpec(find(docs, 'Deployment', 'bcs-host'));
    const host = only(hostSpec.containers);
    expect(host.args!.slice(0, 3)).toEqual(['serve', '--role', 'host']);
    expect(flagValue(host.args!, '--port')).toBe(String(HOST_PORT));
    expect(flagValue(host.args!, '--advertise-url')).toBe(`http://$(POD_IP):${HOST_PORT}`);
    expect(host.env!.find((e) => e.name === 'POD_IP')?.valueFrom?.fieldRef?.fieldPath).toBe('status.podIP');
    expect(host.env!.map((e) => e.name).sort()).toEqual(['BCS_CLUSTER_KEY_FILE', 'BCS_DATABASE_URL', 'BCS_PUBLIC_URL', 'BCS_SECRETS_KEY_FILE', 'POD_IP', 'POD_NAME', 'POD_NAMESPACE']);
    // The pod the host sets the deletion cost of (src/service/cluster/pod-deletion-cost.ts).
    expect(host.env!.find((e) => e.name === 'POD_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    expect(host.env!.find((e) => e.name === 'POD_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.namespace');
    const blobs = host.volumeMounts!.find((m) => m.mountPath === flagValue(host.args!, '--blob-dir'));
    const claim = hostSpec.volumes!.find((v) => v.name === blobs?.name)?.persistentVolumeClaim?.claimName;
    expect((find(docs, 'PersistentVolumeClaim', claim!).spec as { accessModes: string[] }).accessModes).toEqual(['ReadWriteMany']);
    const data = host.volumeMounts!.find((m) => m.mountPath === flagValue(host.args!, '--data-dir'));
    expect(hostSpec.volumes!.find((v) => v.name === data?.name)?.emptyDir).toBeDefined();
    // The memory request is the measured idle floor for --max-sessions (and one standby browser).
    const max = Number(flagValue(host.args!, '--max-sessions'));
    expect(host.resources?.requests?.memory).toBe(`${hostMemoryMiB(max).request}Mi`);
    expect(hostMemoryMiB(max).request).toBe(MEASURED.serviceMiB + (max + 1) * MEASURED.sessionMiB);
  });

  it('lets only the API replicas reach a host, on its port', async () => {
    const docs = await committedDocs();
    const policies = docs.filter((d) => d.kind === 'NetworkPolicy') as Array<Doc & { spec: NetworkPolicy['spec'] }>;
    const onHosts = policies.filter((p) => JSON.stringify(p.spec!.podSelector?.matchLabels) === JSON.stringify(hostLabels));
    const ingress = onHosts.filter((p) => p.spec!.policyTypes?.includes('Ingress'));
    const rule = only(only(ingress).spec!.ingress);
    const from = only(rule.from);
    expect(from).toEqual({ podSelector: { matchLabels: apiLabels } });
    expect(rule.ports).toEqual([{ protocol: 'TCP', port: HOST_PORT }]);
    // The API pods carry those labels, and no other policy on the hosts opens more ingress.
    sameLabels((find(docs, 'Deployment', 'bcs-api').spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels, apiLabels);
    sameLabels((find(docs, 'Deployment', 'bcs-host').spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels, hostLabels);
    for (const p of policies) if (p !== ingress[0]) expect(p.spec!.policyTypes, p.metadata.name).not.toContain('Ingress');
    // Hosts reach DNS, PostgreSQL and the internet, but not the cluster's private addresses.
    const egress = only(onHosts.filter((p) => p.spec!.policyTypes?.includes('Egress'))).spec!.egress!;
    expect(egress.some((r) => r.ports?.some((p) => p.port === defaultOptions.databasePort))).toBe(true);
    const internet = egress.flatMap((r) => r.to ?? []).find((peer) => peer.ipBlock?.cidr === '0.0.0.0/0');
    expect(internet?.ipBlock?.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '169.254.0.0/16']));
  });

  it('takes every key from a Secret, as a mounted file or a secret reference, never as an argument', async () => {
    const docs = await committedDocs();
    const secrets = docs.filter((d) => d.kind === 'Secret');
    // The example Secrets hold placeholders only.
    for (const s of secrets) for (const [key, value] of Object.entries(s.stringData ?? {})) expect(value, `${s.metadata.name}.${key}`).toContain(PLACEHOLDER);
    expect(Object.keys(find(docs, 'Secret', SECRET_KEYS.name).stringData!).sort()).toEqual([SECRET_KEYS.apiKey, SECRET_KEYS.clusterKey, SECRET_KEYS.secretsKey].sort());
    expect(Object.keys(find(docs, 'Secret', SECRET_DATABASE.name).stringData!)).toEqual([SECRET_DATABASE.url]);

    for (const name of ['bcs-api', 'bcs-host']) {
      const spec = podSpec(find(docs, 'Deployment', name));
      const container = only(spec.containers);
      const everyArg = [...container.command!, ...container.args!, ...probeCommands(container).flat()];
      for (const arg of everyArg) {
        expect(arg, name).not.toContain(PLACEHOLDER);
        expect(arg, name).not.toMatch(/^postgres(ql)?:\/\//);
      }
      for (const flag of ['--api-key', '--database-url', '--secrets-key-file']) expect(everyArg, `${name} ${flag}`).not.toContain(flag);
      // Files named by a flag or a *_FILE variable are in the mounted keys Secret, which gives each role only
      // the keys it reads: the API replicas seal nothing, so they get no secrets key.
      const keysMount = container.volumeMounts!.find((m) => m.mountPath === KEYS_DIR)!;
      expect(keysMount.readOnly).toBe(true);
      const keysVolume = spec.volumes!.find((v) => v.name === keysMount.name)?.secret;
      expect(keysVolume?.secretName).toBe(SECRET_KEYS.name);
      const mounted = keysVolume!.items!.map((i) => i.path);
      const files = [flagValue(container.args!, '--api-key-file')!, ...container.env!.filter((e) => e.name.endsWith('_FILE')).map((e) => e.value!)];
      const wanted = name === 'bcs-api' ? [SECRET_KEYS.apiKey, SECRET_KEYS.clusterKey] : [SECRET_KEYS.apiKey, SECRET_KEYS.clusterKey, SECRET_KEYS.secretsKey];
      expect(files.map((f) => f.slice(KEYS_DIR.length + 1)).sort()).toEqual([...wanted].sort());
      expect([...mounted].sort()).toEqual([...wanted].sort());
      for (const file of files) expect(file.startsWith(`${KEYS_DIR}/`), file).toBe(true);
      for (const item of keysVolume!.items!) expect(item.key).toBe(item.path);
      // Anything else in the environment that is a secret comes from a Secret by reference.
      for (const env of container.env!) {
        if (/KEY|PASSWORD|TOKEN|SECRET|DATABASE_URL/.test(env.name) && !env.name.endsWith('_FILE')) {
          expect(env.value, env.name).toBeUndefined();
          expect(env.valueFrom?.secretKeyRef?.name, env.name).toBe(SECRET_DATABASE.name);
        }
      }
      expect(container.env!.find((e) => e.name === 'BCS_DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({ name: SECRET_DATABASE.name, key: SECRET_DATABASE.url });
    }
  });

  it('probes both roles with `bcs probe` on their own port: readiness also fails while draining, liveness only when it does not answer', async () => {
    const docs = await committedDocs();
    for (const [name, port] of [['bcs-api', API_PORT], ['bcs-host', HOST_PORT]] as const) {
      const container = only(podSpec(find(docs, 'Deployment', name)).containers);
      for (const kind of ['startupProbe', 'readinessProbe', 'livenessProbe'] as const) {
        const probe = container[kind];
        expect(probe?.httpGet, `${name} ${kind}`).toBeUndefined();
        const command = probe?.exec?.command ?? [];
        expect(command.slice(0, 2), `${name} ${kind}`).toEqual(['bcs', 'probe']);
        expect(flagValue(command, '--url')).toBe(`http://127.0.0.1:${port}`);
        expect(flagValue(command, '--api-key-file')).toBe(flagValue(container.args!, '--api-key-file'));
        expect(command.includes('--live'), `${name} ${kind}`).toBe(kind !== 'readinessProbe');
      }
      expect(container.ports).toEqual([{ name: 'http', containerPort: port, protocol: 'TCP' }]);
    }
  });

  it('runs nothing as root or privileged, and drops every capability', async () => {
    const docs = await committedDocs();
    for (const deployment of docs.filter((d) => d.kind === 'Deployment')) {
      const spec = podSpec(deployment);
      expect(spec.securityContext?.runAsNonRoot, deployment.metadata.name).toBe(true);
      expect(spec.securityContext?.runAsUser).toBeGreaterThan(0);
      for (const c of spec.containers) {
        expect(c.securityContext?.privileged).not.toBe(true);
        expect(c.securityContext?.runAsUser ?? 1).not.toBe(0);
        expect(c.securityContext?.allowPrivilegeEscalation, c.name).toBe(false);
        expect(c.securityContext?.capabilities).toEqual({ drop: ['ALL'] });
      }
    }
    // The hosts give up the runtime's seccomp and AppArmor profiles and /proc masking for bubblewrap, and
    // only inside a user namespace of their own; the API keeps the runtime's seccomp profile.
    const host = podSpec(find(docs, 'Deployment', 'bcs-host'));
    expect(host.hostUsers).toBe(false);
    expect(only(host.containers).securityContext?.procMount).toBe('Unmasked');
    expect(host.securityContext?.seccompProfile).toEqual({ type: 'Unconfined' });
    expect(podSpec(find(docs, 'Deployment', 'bcs-api')).securityContext?.seccompProfile).toEqual({ type: 'RuntimeDefault' });
  });

  it('gives a Kubernetes API token to the hosts alone, good for patching pods in their namespace and nothing else', async () => {
    const docs = await committedDocs();
    // Replicas call no API: no token is mounted, whatever account they run as.
    const api = podSpec(find(docs, 'Deployment', 'bcs-api'));
    expect(api.automountServiceAccountToken).toBe(false);
    expect(api.serviceAccountName).toBeUndefined();
    const host = podSpec(find(docs, 'Deployment', 'bcs-host'));
    expect(host.serviceAccountName).toBe(HOST_SERVICE_ACCOUNT);
    expect(host.automountServiceAccountToken).toBe(true);
    // A pod that names the account by mistake gets no token unless it asks for one.
    const account = find(docs, 'ServiceAccount', HOST_SERVICE_ACCOUNT) as Doc & { automountServiceAccountToken?: boolean };
    expect(account.automountServiceAccountToken).toBe(false);
    expect(account.file).toBe('hosts.yaml');

    // Nothing cluster-wide; one Role, one binding, both in the namespace.
    const rbac = docs.filter((d) => d.apiVersion.startsWith('rbac.authorization.k8s.io/'));
    expect(rbac.map((d) => d.kind).sort()).toEqual(['Role', 'RoleBinding']);
    const role = find(docs, 'Role', HOST_SERVICE_ACCOUNT) as Doc & Pick<Role, 'rules'>;
    expect(role.rules).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['patch'] }]);
    const binding = find(docs, 'RoleBinding', HOST_SERVICE_ACCOUNT) as Doc & Pick<RoleBinding, 'roleRef' | 'subjects'>;
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: HOST_SERVICE_ACCOUNT, namespace: defaultOptions.namespace }]);
    // kubectl apply goes in file order, and a pod naming an account that does not exist yet is refused.
    const inHosts = docs.filter((d) => d.file === 'hosts.yaml');
    expect(inHosts.indexOf(account)).toBeLessThan(inHosts.findIndex((d) => d.kind === 'Deployment'));

    // The hosts' egress reaches the API server only where the options say it is.
    const egressOf = (text: string) =>
      parseAllDocuments(text)
        .map((d) => d.toJS() as Doc & { spec: NetworkPolicy['spec'] })
        .find((d) => d.metadata.name === 'bcs-host-egress')!.spec!.egress!;
    const byDefault = egressOf(manifests().find((f) => f.file === 'network-policy.yaml')!.text);
    expect(byDefault.filter((r) => r.ports?.some((p) => p.port === defaultOptions.kubernetesApiPort))).toEqual([]);
    const apiServer = { ipBlock: { cidr: '10.0.0.1/32' } };
    const given = egressOf(manifests({ kubernetesApiPeers: [apiServer], kubernetesApiPort: 6443 }).find((f) => f.file === 'network-policy.yaml')!.text);
    expect(given.filter((r) => r.ports?.some((p) => p.port === 6443))).toEqual([{ to: [apiServer], ports: [{ protocol: 'TCP', port: 6443 }] }]);
  });

  it('scales the hosts with KEDA on demand over capacity, from at least one, and keeps disruptions to one pod per role', async () => {
    const docs = await committedDocs();
    const hostDeployment = find(docs, 'Deployment', 'bcs-host');
    expect(hostDeployment.spec!.replicas).toBeUndefined();
    const scaled = specOf<ScaledObject['spec']>(find(docs, 'ScaledObject', 'bcs-host'));
    expect(scaled.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'bcs-host' });
    expect(scaled.minReplicaCount).toBe(1);
    const trigger = only(scaled.triggers);
    expect(trigger.type).toBe('postgresql');
    expect(trigger.metadata.query).toBe(DEMAND_QUERY);
    expect(trigger.metadata.targetQueryValue).toBe(flagValue(only(podSpec(hostDeployment).containers).args!, '--max-sessions'));
    const auth = specOf<TriggerAuthentication['spec']>(find(docs, 'TriggerAuthentication', trigger.authenticationRef!.name));
    expect(auth!.secretTargetRef).toEqual([{ parameter: 'connection', name: SECRET_DATABASE.name, key: SECRET_DATABASE.url }]);

    for (const [name, labels] of [['bcs-api', apiLabels], ['bcs-host', hostLabels]] as const) {
      const pdb = specOf<PodDisruptionBudget['spec']>(find(docs, 'PodDisruptionBudget', name));
      expect(pdb!.selector?.matchLabels).toEqual(labels);
      expect(pdb!.maxUnavailable).toBe(1);
      sameLabels((find(docs, 'Service', name).spec as { selector: Record<string, string> }).selector, labels);
    }
  });

  it('writes the options it is given, and refuses ones the service would not take', () => {
    const files = manifests({ image: 'registry.example/bcs:1.2.3', maxSessionsPerHost: 8, drainSeconds: 900 });
    const hosts = files.find((f) => f.file === 'hosts.yaml')!.text;
    expect(hosts).toContain('image: registry.example/bcs:1.2.3');
    expect(hosts).toContain('terminationGracePeriodSeconds: 960');
    expect(files.find((f) => f.file === 'keda.yaml')!.text).toContain('targetQueryValue: "8"');
    expect(() => manifests({ publicUrl: 'https://browsers.example.com/path' })).toThrow(/origin/);
    expect(() => manifests({ maxSessionsPerHost: 0 })).toThrow(/maxSessionsPerHost/);
    expect(() => manifests({ kubernetesApiPort: 0 })).toThrow(/kubernetesApiPort/);
  });
});

function probeCommands(c: IContainer): string[][] {
  return [c.startupProbe, c.readinessProbe, c.livenessProbe].map((p) => p?.exec?.command ?? []);
}

/** A unit file's [Service] settings, each key with every value it is given. */
function serviceSettings(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    if (section !== 'Service' || eq < 0) continue;
    const key = line.slice(0, eq);
    settings.set(key, [...(settings.get(key) ?? []), line.slice(eq + 1)]);
  }
  return settings;
}

describe('deploy/systemd', () => {
  for (const [unit, role, port] of [['bcs-api.service', 'api', API_PORT], ['bcs-host.service', 'host', HOST_PORT]] as const) {
    it(`${unit} runs --role ${role}, stops by SIGTERM with time for its drain, and reads its keys from files`, async () => {
      const text = await readFile(join(SYSTEMD, unit), 'utf8');
      const s = serviceSettings(text);
      const exec = only(s.get('ExecStart')).split(/\s+/);
      expect(exec.slice(1, 4)).toEqual(['serve', '--role', role]);
      expect(flagValue(exec, '--port')).toBe(String(port));
      expect(s.get('KillSignal')).toEqual(['SIGTERM']);
      const drain = Number(flagValue(exec, '--drain-seconds') ?? 0);
      expect(Number(only(s.get('TimeoutStopSec')))).toBeGreaterThan(drain);
      if (role === 'host') {
        expect(drain).toBe(defaultOptions.drainSeconds);
        // SIGTERM to the service alone: its browsers keep running through the drain.
        expect(s.get('KillMode')).toEqual(['mixed']);
      }
      // Keys: systemd credentials, named by path; the database URL from a 0600 environment file.
      const credentials = new Map((s.get('LoadCredential') ?? []).map((c) => c.split(':') as [string, string]));
      expect([...credentials.keys()].sort()).toEqual(role === 'host' ? ['api-key', 'cluster-key', 'secrets-key'] : ['api-key', 'cluster-key']);
      for (const path of credentials.values()) expect(path.startsWith('/etc/bcs/'), path).toBe(true);
      expect(flagValue(exec, '--api-key-file')).toBe('%d/api-key');
      const keyFiles = (s.get('Environment') ?? []).filter((e) => /^BCS_\w+_FILE=/.test(e)).sort();
      expect(keyFiles).toEqual(role === 'host' ? ['BCS_CLUSTER_KEY_FILE=%d/cluster-key', 'BCS_SECRETS_KEY_FILE=%d/secrets-key'] : ['BCS_CLUSTER_KEY_FILE=%d/cluster-key']);
      expect(s.get('EnvironmentFile')).toHaveLength(1);
      expect(text).not.toMatch(/postgres(ql)?:\/\/|BCS_DATABASE_URL=|BCS_API_KEY=|--api-key\s/);
      // Its example environment file holds placeholders only.
      const envFile = await readFile(join(SYSTEMD, `${role}.env.example`), 'utf8');
      expect(envFile).toMatch(new RegExp(`^BCS_DATABASE_URL=postgres://bcs:${PLACEHOLDER}@`, 'm'));
      for (const name of [...only(s.get('ExecStart')).matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]!)) expect(envFile, name).toMatch(new RegExp(`^${name}=`, 'm'));
    });
  }
});
