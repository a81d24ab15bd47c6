// The Kubernetes manifests of the cluster (docs/cluster.md), built as typed objects with kubernetes-models
// and @kubernetes-models/keda, each validated against its schema, and written as the YAML files beside this
// one. Those files are committed; test/deploy/kubernetes-units.test.ts regenerates them in memory and fails
// when they differ, so a change is made here and the files are written again:
//   npm run deploy:generate          (deploy/kubernetes/generate.mjs compiles this file and runs writeManifests)
// What the objects run is `bcs serve --role api` (stateless replicas: placement, and the proxy to the host that
// serves a request) and `bcs serve --role host` (Chromium sessions in bubblewrap), over one PostgreSQL, with
// KEDA sizing the hosts to the sessions asked for.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Model } from '@kubernetes-models/base';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { INetworkPolicyPeer } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicyPeer';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { stringify } from 'yaml';

/** What an operator chooses; everything else follows from the CLI's contract. */
export interface ClusterOptions {
  namespace: string;
  /** The image built from deploy/image/Containerfile (docs/cluster.md), pushed where the nodes pull from. */
  image: string;
  /** The origin clients reach the API by (BCS_PUBLIC_URL): the ingress or load balancer in front of it. */
  publicUrl: string;
  apiReplicas: number;
  /** Sessions one host runs at once (--max-sessions): what one host pod's memory is sized for, and KEDA's target. */
  maxSessionsPerHost: number;
  /** How long a host stopped by SIGTERM waits for its sessions to end (--drain-seconds). */
  drainSeconds: number;
  minHosts: number;
  maxHosts: number;
  /** Size of the volume every host shares for profiles, extensions, app bundles and replays. */
  blobStorage: string;
  /**
   * A storage class whose volumes are ReadWriteMany and, since host pods run in a user namespace of their own,
   * on a filesystem that supports idmapped mounts (docs/cluster.md); unset: the cluster's default class.
   */
  blobStorageClass?: string;
  /** The port PostgreSQL listens on, for the hosts' egress. */
  databasePort: number;
  /** Where PostgreSQL is, for the hosts' egress; empty: any address on databasePort. */
  databasePeers: INetworkPolicyPeer[];
  /** Who else may reach the hosts' port besides the API replicas (a Prometheus, for /metrics); empty: no one. */
  hostScrapers: INetworkPolicyPeer[];
  /**
   * Where the Kubernetes API server's endpoints are (the addresses of the `kubernetes` Service's
   * EndpointSlice in `default`), for the hosts' egress: each host sets its pod's deletion cost there. Empty: no
   * egress rule for it, since NetworkPolicy sees the endpoint's address, not the Service's, and opening the
   * port to every address would open it to every service in the cluster; hosts then log that they cannot set it.
   */
  kubernetesApiPeers: INetworkPolicyPeer[];
  /** The port those endpoints listen on: 443 on most managed clusters, 6443 on kubeadm's. */
  kubernetesApiPort: number;
}

export const defaultOptions: ClusterOptions = {
  namespace: 'bcs',
  image: 'browser-scenarios:latest',
  publicUrl: 'https://browsers.example.com',
  apiReplicas: 2,
  maxSessionsPerHost: 20,
  drainSeconds: 600,
  minHosts: 1,
  maxHosts: 10,
  blobStorage: '100Gi',
  databasePort: 5432,
  databasePeers: [],
  hostScrapers: [],
  kubernetesApiPeers: [],
  kubernetesApiPort: 443,
};

export const API_PORT = 8340;
export const HOST_PORT = 8341;
/** The service's user in the image (deploy/image/Containerfile). */
export const SERVICE_UID = 10001;
/** Where the keys are mounted: outside /etc, /usr and /var, so nothing of them is inside a session's sandbox view. */
export const KEYS_DIR = '/run/secrets/bcs';
export const DATA_DIR = '/var/lib/bcs/data';
export const BLOB_DIR = '/var/lib/bcs/blobs';
/** The values in secrets.example.yaml: none is a usable key (the service refuses an API key under 16 characters, and a cluster or secrets key that is not 32 bytes). */
export const PLACEHOLDER = 'REPLACE-ME';
/** KEDA's measure of demand: sessions running and creates waiting, on every live host. */
export const DEMAND_QUERY = 'SELECT coalesce(sum(sessions + queued), 0) FROM hosts WHERE gone_at IS NULL';

/**
 * Memory, measured by bench/idle-sessions (Debian's headless shell, idle sessions): one session ~74 MiB PSS,
 * the service process ~105 MiB RSS. A host's request is that floor for --max-sessions plus the one standby browser a host
 * keeps by default; busy pages take more, which the limit leaves room for (twice the floor: an estimate, not
 * a measurement).
 */
export const MEASURED = { sessionMiB: 74, serviceMiB: 105 } as const;
const STANDBY_BROWSERS = 1;

export const SECRET_KEYS = { name: 'bcs-keys', apiKey: 'api-key', clusterKey: 'cluster-key', secretsKey: 'secrets-key' } as const;
export const SECRET_DATABASE = { name: 'bcs-database', url: 'url' } as const;

const NAME = 'browser-scenarios';
export const apiLabels = { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/component': 'api' };
export const hostLabels = { 'app.kubernetes.io/name': NAME, 'app.kubernetes.io/component': 'host' };
/** The identity host pods call the Kubernetes API as (their deletion cost); replicas call it as no one. */
export const HOST_SERVICE_ACCOUNT = 'bcs-host';

/** Private, link-local and shared address space: the hosts' sessions browse the internet, not the cluster or the cloud's metadata service. */
const NOT_INTERNET_V4 = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16'];
const NOT_INTERNET_V6 = ['fc00::/7', 'fe80::/10'];

export interface ManifestFile {
  /** The file's name in deploy/kubernetes/. */
  file: string;
  objects: Model<unknown>[];
  /** The file's text: a header, then every object as a YAML document. */
  text: string;
}

const HEADER = '# Generated by deploy/kubernetes/generate.ts (npm run deploy:generate): change that file, not this one.\n# How to apply it: docs/cluster.md\n';
const SECRETS_HEADER =
  `# TEMPLATES ONLY: every ${PLACEHOLDER} is a placeholder, and the service refuses to start on them.\n` +
  '# Create the real Secrets with the same names and keys (docs/cluster.md shows kubectl create secret commands);\n' +
  '# do not commit real values.\n';

/** Every manifest file, its objects validated. */
export function manifests(overrides: Partial<ClusterOptions> = {}): ManifestFile[] {
  const o: ClusterOptions = { ...defaultOptions, ...overrides };
  checkOptions(o);
  const files: Array<{ file: string; header?: string; objects: Model<unknown>[] }> = [
    { file: 'namespace.yaml', objects: [namespace(o)] },
    { file: 'secrets.example.yaml', header: SECRETS_HEADER, objects: secrets(o) },
    { file: 'api.yaml', objects: api(o) },
    { file: 'hosts.yaml', objects: hosts(o) },
    { file: 'network-policy.yaml', objects: networkPolicies(o) },
    { file: 'keda.yaml', objects: keda(o) },
  ];
  return files.map(({ file, header, objects }) => {
    for (const object of objects) object.validate();
    const docs = objects.map((object) => stringify(object.toJSON(), { lineWidth: 0 }));
    return { file, objects, text: `${HEADER}${header ?? ''}${docs.map((d) => `---\n${d}`).join('')}` };
  });
}

/** Writes every manifest file into `dir` (a file no longer generated stays: the unit test names it). */
export async function writeManifests(dir: string, overrides: Partial<ClusterOptions> = {}): Promise<string[]> {
  const files = manifests(overrides);
  await mkdir(dir, { recursive: true });
  for (const f of files) await writeFile(join(dir, f.file), f.text);
  return files.map((f) => join(dir, f.file));
}

function checkOptions(o: ClusterOptions): void {
  const whole = (name: keyof ClusterOptions, min: number) => {
    const v = o[name];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new Error(`${name} must be an integer of at least ${min}, not ${String(v)}`);
  };
  whole('apiReplicas', 1);
  whole('maxSessionsPerHost', 1);
  whole('drainSeconds', 0);
  whole('minHosts', 1);
  whole('maxHosts', o.minHosts);
  whole('databasePort', 1);
  whole('kubernetesApiPort', 1);
  if (!o.image) throw new Error('image must be named');
  const url = new URL(o.publicUrl);
  if (url.origin !== o.publicUrl) throw new Error(`publicUrl must be an origin only (scheme, host, port): ${o.publicUrl}`);
}

const meta = (o: ClusterOptions, name: string, labels?: Record<string, string>) => ({ name, namespace: o.namespace, ...(labels ? { labels } : {}) });

function namespace(o: ClusterOptions): Namespace {
  return new Namespace({
    metadata: {
      name: o.namespace,
      labels: {
        // The host pods turn off the runtime's seccomp and AppArmor profiles and unmask /proc so bubblewrap can
        // build each session's sandbox (docs/cluster.md): the baseline Pod Security level forbids all three.
        'pod-security.kubernetes.io/enforce': 'privileged',
      },
    },
  });
}

function secrets(o: ClusterOptions): Secret[] {
  return [
    new Secret({
      metadata: meta(o, SECRET_KEYS.name),
      type: 'Opaque',
      stringData: {
        // the admin API key (bcs serve --api-key-file): at least 16 characters, e.g. `openssl rand -hex 32`
        [SECRET_KEYS.apiKey]: PLACEHOLDER,
        // the 32-byte credential replicas and hosts share (BCS_CLUSTER_KEY_FILE): `openssl rand -base64 32`
        [SECRET_KEYS.clusterKey]: PLACEHOLDER,
        // the 32-byte key sealed secrets are encrypted with (BCS_SECRETS_KEY_FILE): `openssl rand -base64 32`
        [SECRET_KEYS.secretsKey]: PLACEHOLDER,
      },
    }),
    new Secret({
      metadata: meta(o, SECRET_DATABASE.name),
      type: 'Opaque',
      stringData: { [SECRET_DATABASE.url]: `postgres://bcs:${PLACEHOLDER}@${PLACEHOLDER}:${o.databasePort}/bcs?sslmode=require` },
    }),
  ];
}

/** `bcs probe` against the service's own port: exec, since every route wants a bearer key. */
function probe(port: number, live: boolean, timing: Pick<IProbe, 'periodSeconds' | 'failureThreshold'>): IProbe {
  const command = ['bcs', 'probe', '--url', `http://127.0.0.1:${port}`, '--api-key-file', `${KEYS_DIR}/${SECRET_KEYS.apiKey}`];
  if (live) command.push('--live');
  return { exec: { command }, timeoutSeconds: 5, ...timing };
}

/** Startup (up to 2 minutes: migrations, the sandbox check, the first browser), readiness (not draining), liveness (answers). */
function probes(port: number): Pick<IContainer, 'startupProbe' | 'readinessProbe' | 'livenessProbe'> {
  return {
    startupProbe: probe(port, true, { periodSeconds: 2, failureThreshold: 60 }),
    readinessProbe: probe(port, false, { periodSeconds: 5, failureThreshold: 2 }),
    livenessProbe: probe(port, true, { periodSeconds: 10, failureThreshold: 6 }),
  };
}

/** What both roles read: the database URL from a Secret by reference, the cluster key as a file, the public origin. */
function sharedEnv(o: ClusterOptions): IEnvVar[] {
  return [
    { name: 'BCS_DATABASE_URL', valueFrom: { secretKeyRef: { name: SECRET_DATABASE.name, key: SECRET_DATABASE.url } } },
    { name: 'BCS_CLUSTER_KEY_FILE', value: `${KEYS_DIR}/${SECRET_KEYS.clusterKey}` },
    // Hosts write the URLs in answers (a replica passes them on as they are), so both roles know the origin.
    { name: 'BCS_PUBLIC_URL', value: o.publicUrl },
  ];
}

/** The keys Secret as files, each role getting only the keys it reads. */
const keysVolume = (keys: string[]) => ({ name: 'keys', secret: { secretName: SECRET_KEYS.name, defaultMode: 0o440, items: keys.map((key) => ({ key, path: key })) } });
const keysMount = { name: 'keys', mountPath: KEYS_DIR, readOnly: true };
const spreadOverNodes = (labels: Record<string, string>) => [
  { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway' as const, labelSelector: { matchLabels: labels } },
];

function api(o: ClusterOptions): Model<unknown>[] {
  const container: IContainer = {
    name: 'api',
    image: o.image,
    imagePullPolicy: 'IfNotPresent',
    command: ['tini', '--', 'bcs'],
    args: ['serve', '--role', 'api', '--host', '0.0.0.0', '--port', String(API_PORT), '--api-key-file', `${KEYS_DIR}/${SECRET_KEYS.apiKey}`],
    env: sharedEnv(o),
    ports: [{ name: 'http', containerPort: API_PORT, protocol: 'TCP' }],
    ...probes(API_PORT),
    // The service alone measured ~105 MiB; the limit is room for proxied streams (an estimate). CPU: not measured.
    resources: { requests: { cpu: '250m', memory: '128Mi' }, limits: { memory: '512Mi' } },
    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    volumeMounts: [keysMount],
  };
  return [
    new Deployment({
      metadata: meta(o, 'bcs-api', apiLabels),
      spec: {
        replicas: o.apiReplicas,
        selector: { matchLabels: apiLabels },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        template: {
          metadata: { labels: apiLabels },
          spec: {
            automountServiceAccountToken: false,
            enableServiceLinks: false,
            securityContext: { runAsNonRoot: true, runAsUser: SERVICE_UID, runAsGroup: SERVICE_UID, fsGroup: SERVICE_UID, seccompProfile: { type: 'RuntimeDefault' } },
            topologySpreadConstraints: spreadOverNodes(apiLabels),
            containers: [container],
            // The replica keeps nothing on disk and seals nothing: no data dir, no secrets key.
            volumes: [keysVolume([SECRET_KEYS.apiKey, SECRET_KEYS.clusterKey])],
          },
        },
      },
    }),
    new Service({
      metadata: meta(o, 'bcs-api', apiLabels),
      spec: { selector: apiLabels, ports: [{ name: 'http', port: API_PORT, targetPort: 'http', protocol: 'TCP' }] },
    }),
    new PodDisruptionBudget({
      metadata: meta(o, 'bcs-api', apiLabels),
      spec: { maxUnavailable: 1, selector: { matchLabels: apiLabels } },
    }),
  ];
}

/** A host's memory request and limit in MiB (see MEASURED). */
export function hostMemoryMiB(maxSessions: number): { request: number; limit: number } {
  const request = Math.ceil(MEASURED.serviceMiB + (maxSessions + STANDBY_BROWSERS) * MEASURED.sessionMiB);
  return { request, limit: 2 * request };
}

function hosts(o: ClusterOptions): Model<unknown>[] {
  const memory = hostMemoryMiB(o.maxSessionsPerHost);
  const container: IContainer = {
    name: 'host',
    image: o.image,
    imagePullPolicy: 'IfNotPresent',
    command: ['tini', '--', 'bcs'],
    args: [
      'serve',
      '--role',
      'host',
      '--host',
      '0.0.0.0',
      '--port',
      String(HOST_PORT),
      '--advertise-url',
      `http://$(POD_IP):${HOST_PORT}`,
      '--max-sessions',
      String(o.maxSessionsPerHost),
      '--drain-seconds',
      String(o.drainSeconds),
      '--data-dir',
      DATA_DIR,
      '--blob-dir',
      BLOB_DIR,
      '--api-key-file',
      `${KEYS_DIR}/${SECRET_KEYS.apiKey}`,
    ],
    env: [
      { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      // The pod whose deletion cost the host keeps (src/service/cluster/pod-deletion-cost.ts).
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      ...sharedEnv(o),
      { name: 'BCS_SECRETS_KEY_FILE', value: `${KEYS_DIR}/${SECRET_KEYS.secretsKey}` },
    ],
    ports: [{ name: 'http', containerPort: HOST_PORT, protocol: 'TCP' }],
    ...probes(HOST_PORT),
    // No CPU limit: a throttled browser misses its own timeouts. The CPU request is a placeholder (not measured).
    resources: { requests: { cpu: '1', memory: `${memory.request}Mi` }, limits: { memory: `${memory.limit}Mi` } },
    securityContext: {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      // bubblewrap mounts a fresh /proc in each session's pid namespace; the kernel allows that only where the
      // container's /proc is not partly covered, which the runtime's default masking does.
      procMount: 'Unmasked',
    },
    volumeMounts: [keysMount, { name: 'data', mountPath: DATA_DIR }, { name: 'blobs', mountPath: BLOB_DIR }, { name: 'shm', mountPath: '/dev/shm' }],
  };
  return [
    ...hostAccess(o),
    new PersistentVolumeClaim({
      metadata: meta(o, 'bcs-blobs', { 'app.kubernetes.io/name': NAME }),
      spec: {
        accessModes: ['ReadWriteMany'],
        ...(o.blobStorageClass ? { storageClassName: o.blobStorageClass } : {}),
        resources: { requests: { storage: o.blobStorage } },
      },
    }),
    new Deployment({
      metadata: meta(o, 'bcs-host', hostLabels),
      spec: {
        // No replicas: the ScaledObject in keda.yaml owns the count.
        selector: { matchLabels: hostLabels },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        template: {
          metadata: { labels: hostLabels },
          spec: {
            // The token lets the host set its pod's deletion cost, all its Role allows. Its mount
            // (/var/run/secrets/kubernetes.io/serviceaccount) is outside what a session's sandbox shows.
            serviceAccountName: HOST_SERVICE_ACCOUNT,
            automountServiceAccountToken: true,
            enableServiceLinks: false,
            // A user namespace of the pod's own: required for procMount Unmasked, and the service's uid is then
            // no one on the node.
            hostUsers: false,
            // SIGTERM starts the drain (--drain-seconds); after it the service ends what still runs and stops.
            terminationGracePeriodSeconds: o.drainSeconds + 60,
            securityContext: {
              runAsNonRoot: true,
              runAsUser: SERVICE_UID,
              runAsGroup: SERVICE_UID,
              fsGroup: SERVICE_UID,
              fsGroupChangePolicy: 'OnRootMismatch',
              // The runtime's default profiles refuse what bubblewrap does to build a sandbox: unshare a user
              // namespace, mount, pivot_root. Sessions are confined by that sandbox instead.
              seccompProfile: { type: 'Unconfined' },
              appArmorProfile: { type: 'Unconfined' },
            },
            topologySpreadConstraints: spreadOverNodes(hostLabels),
            containers: [container],
            volumes: [
              keysVolume([SECRET_KEYS.apiKey, SECRET_KEYS.clusterKey, SECRET_KEYS.secretsKey]),
              { name: 'data', emptyDir: {} },
              { name: 'blobs', persistentVolumeClaim: { claimName: 'bcs-blobs' } },
              // Chromium keeps shared memory in /dev/shm; runtimes give a container 64 MiB there.
              { name: 'shm', emptyDir: { medium: 'Memory', sizeLimit: '1Gi' } },
            ],
          },
        },
      },
    }),
    new Service({
      // Headless: hosts are reached by the URL each advertises (its pod IP); the Service names them for discovery.
      metadata: meta(o, 'bcs-host', hostLabels),
      spec: { clusterIP: 'None', selector: hostLabels, ports: [{ name: 'http', port: HOST_PORT, targetPort: 'http', protocol: 'TCP' }] },
    }),
    new PodDisruptionBudget({
      metadata: meta(o, 'bcs-host', hostLabels),
      spec: { maxUnavailable: 1, selector: { matchLabels: hostLabels } },
    }),
  ];
}

/** The hosts' service account and the one thing it may do: patch a pod, to set that pod's deletion cost. */
function hostAccess(o: ClusterOptions): Model<unknown>[] {
  return [
    new ServiceAccount({
      metadata: meta(o, HOST_SERVICE_ACCOUNT, hostLabels),
      // Only a pod that asks for the token gets it (the host Deployment does): nothing else that names this
      // account by mistake carries its rights.
      automountServiceAccountToken: false,
    }),
    new Role({
      metadata: meta(o, HOST_SERVICE_ACCOUNT, hostLabels),
      rules: [
        {
          // RBAC can name the objects a rule covers (resourceNames), but a Deployment's pods are named when they
          // are made, so no name can be written here: the rule covers every pod in the namespace, which holds
          // only this service's. No get: the host only writes its annotation, a JSON merge patch.
          apiGroups: [''],
          resources: ['pods'],
          verbs: ['patch'],
        },
      ],
    }),
    new RoleBinding({
      metadata: meta(o, HOST_SERVICE_ACCOUNT, hostLabels),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: HOST_SERVICE_ACCOUNT },
      subjects: [{ kind: 'ServiceAccount', name: HOST_SERVICE_ACCOUNT, namespace: o.namespace }],
    }),
  ];
}

function networkPolicies(o: ClusterOptions): NetworkPolicy[] {
  return [
    new NetworkPolicy({
      metadata: meta(o, 'bcs-host-ingress', hostLabels),
      spec: {
        podSelector: { matchLabels: hostLabels },
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ podSelector: { matchLabels: apiLabels } }, ...o.hostScrapers], ports: [{ protocol: 'TCP', port: HOST_PORT }] }],
      },
    }),
    new NetworkPolicy({
      metadata: meta(o, 'bcs-host-egress', hostLabels),
      spec: {
        podSelector: { matchLabels: hostLabels },
        policyTypes: ['Egress'],
        egress: [
          // DNS, wherever the cluster's resolver is.
          { ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] },
          { ...(o.databasePeers.length ? { to: o.databasePeers } : {}), ports: [{ protocol: 'TCP', port: o.databasePort }] },
          // The API server, for the pod's deletion cost: only at the addresses given (see kubernetesApiPeers).
          ...(o.kubernetesApiPeers.length ? [{ to: o.kubernetesApiPeers, ports: [{ protocol: 'TCP' as const, port: o.kubernetesApiPort }] }] : []),
          // The internet, for the sessions.
          { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: NOT_INTERNET_V4 } }, { ipBlock: { cidr: '::/0', except: NOT_INTERNET_V6 } }] },
        ],
      },
    }),
  ];
}

function keda(o: ClusterOptions): Model<unknown>[] {
  return [
    new TriggerAuthentication({
      metadata: meta(o, 'bcs-database', hostLabels),
      spec: { secretTargetRef: [{ parameter: 'connection', name: SECRET_DATABASE.name, key: SECRET_DATABASE.url }] },
    }),
    new ScaledObject({
      metadata: meta(o, 'bcs-host', hostLabels),
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'bcs-host' },
        minReplicaCount: o.minHosts,
        maxReplicaCount: o.maxHosts,
        pollingInterval: 15,
        advanced: {
          horizontalPodAutoscalerConfig: {
            behavior: {
              // A host leaving drains its sessions for up to --drain-seconds: let demand settle, then one at a time.
              scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
            },
          },
        },
        triggers: [
          {
            type: 'postgresql',
            // hosts = demand / capacity: the HPA keeps the average per host at --max-sessions.
            metadata: { query: DEMAND_QUERY, targetQueryValue: String(o.maxSessionsPerHost) },
            authenticationRef: { name: 'bcs-database' },
          },
        ],
      },
    }),
  ];
}
