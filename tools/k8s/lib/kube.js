'use strict';
// kubectl/helm against the local control plane, and the one thing a kubelet would do that a chart
// install depends on: finishing the migrations hook Job's Pod.
const fs = require('node:fs');
const path = require('node:path');
const { run, runAsync, must, assert } = require('./run');
const { sleep } = require('./cluster');

class Kube {
  constructor({ bin, env, workDir }) {
    this.bin = bin;
    this.env = env;
    this.workDir = workDir;
  }

  kubectl(args, input) {
    return run(path.join(this.bin, 'kubectl'), args, { env: this.env, input });
  }

  json(args) {
    return JSON.parse(must(this.kubectl([...args, '-o', 'json']), `kubectl ${args.join(' ')}`));
  }

  helm(args) {
    return run(path.join(this.bin, 'helm'), args, { env: this.env });
  }

  helmAsync(args) {
    return runAsync(path.join(this.bin, 'helm'), args, { env: this.env });
  }

  /** A namespace where the API server enforces PodSecurity `restricted`, as a strict cluster does. */
  createRestrictedNamespace(name) {
    must(this.kubectl(['create', 'namespace', name]), `create namespace ${name}`);
    must(
      this.kubectl([
        'label',
        'namespace',
        name,
        'pod-security.kubernetes.io/enforce=restricted',
        'pod-security.kubernetes.io/enforce-version=latest',
      ]),
      `label namespace ${name}`,
    );
  }

  /**
   * Runs `helm install|upgrade` while standing in for the kubelet on hook Pods only: each Pod the
   * Job controller creates for a hook Job (after PodSecurity admitted it) is marked Succeeded, so
   * Helm sees the Job complete and goes on; the Deployments' Pods stay Pending. Returns helm's
   * result and the names of the hook Jobs whose Pods were seen.
   */
  async helmWithHooks(args, namespace) {
    const jobs = new Set();
    let done = false;
    const helm = this.helmAsync(args).finally(() => (done = true));
    while (!done) {
      const r = this.kubectl([
        'get',
        'pods',
        '-n',
        namespace,
        '-l',
        'batch.kubernetes.io/job-name',
        '-o',
        'jsonpath={range .items[*]}{.metadata.name} {.metadata.labels.batch\\.kubernetes\\.io/job-name} {.status.phase}{"\\n"}{end}',
      ]);
      for (const line of r.code === 0 ? r.stdout.split('\n') : []) {
        const [pod, job, phase] = line.trim().split(' ');
        if (!pod) continue;
        jobs.add(job);
        if (phase === 'Pending') this.completePod(namespace, pod);
      }
      await sleep(300);
    }
    return { ...(await helm), jobs: [...jobs] };
  }

  completePod(namespace, pod) {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const status = {
      status: {
        phase: 'Succeeded',
        conditions: [{ type: 'Ready', status: 'False', reason: 'PodCompleted', lastTransitionTime: now }],
        containerStatuses: [
          {
            name: 'migrate',
            image: 'stand-in',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now } },
          },
        ],
      },
    };
    this.kubectl([
      'patch',
      'pod',
      pod,
      '-n',
      namespace,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify(status),
    ]);
  }

  releaseStatus(release, namespace) {
    const r = this.helm(['status', release, '-n', namespace, '-o', 'json']);
    if (r.code !== 0) return undefined;
    return JSON.parse(r.stdout).info.status;
  }

  /** Every object of the release's manifest exists on the API server; returns them. */
  releaseObjects(release, namespace) {
    const manifest = must(this.helm(['get', 'manifest', release, '-n', namespace]), 'helm get manifest');
    const file = path.join(this.workDir, `${namespace}-${release}-manifest.yaml`);
    fs.writeFileSync(file, manifest);
    // kind.group/name of every document in the manifest, then of what the API server returns.
    const names = (text) =>
      text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
    const want = names(
      must(
        this.kubectl(['create', '--dry-run=client', '-n', namespace, '-f', file, '-o', 'name']),
        'kubectl create --dry-run',
      ),
    );
    const r = this.kubectl(['get', '-n', namespace, '-f', file, '-o', 'name']);
    assert(r.code === 0, `objects of ${release} missing on the API server:\n${r.stderr.trim()}`);
    const have = names(r.stdout);
    const missing = want.filter((w) => !have.includes(w));
    assert(missing.length === 0, `missing: ${missing.join(', ')}`);
    return have;
  }

  /** Polls fn until it returns a truthy value or the time is up; returns the last value. */
  async eventually(timeoutMs, fn) {
    const deadline = Date.now() + timeoutMs;
    let last;
    while (Date.now() < deadline) {
      last = await fn();
      if (last && last.ok) return last;
      await sleep(500);
    }
    return last;
  }

  /**
   * Each Deployment reaches the replica count it asks for (the HPA raises it to minReplicas), with
   * one ReplicaSet per template and every Pod admitted. With `rolling`, the current ReplicaSet only
   * needs its first admitted Pod (a rollout cannot finish without a kubelet). Returns
   * { ok, problems, count, deps: { name: { rs, pods, replicas, want } } }.
   */
  async deploymentsSettled(namespace, timeoutMs = 60_000, { rolling = false } = {}) {
    const last = await this.eventually(timeoutMs, () => {
      const deps = this.json(['get', 'deployments', '-n', namespace]).items;
      const rss = this.json(['get', 'replicasets', '-n', namespace]).items;
      const pods = this.json([
        'get',
        'pods',
        '-n',
        namespace,
        '-l',
        'app.kubernetes.io/component=server',
      ]).items;
      const hpas = this.json(['get', 'hpa', '-n', namespace]).items;
      const out = {};
      const problems = [];
      for (const d of deps) {
        const name = d.metadata.name;
        const owned = rss.filter((rs) => rs.metadata.ownerReferences?.some((o) => o.uid === d.metadata.uid));
        const current = owned.find(
          (rs) =>
            rs.metadata.annotations?.['deployment.kubernetes.io/revision'] ===
            d.metadata.annotations?.['deployment.kubernetes.io/revision'],
        );
        const hpa = hpas.find((h) => h.spec.scaleTargetRef.name === name);
        const want = hpa ? Math.max(hpa.spec.minReplicas ?? 1, 1) : d.spec.replicas;
        const podsOf = current
          ? pods.filter((p) => p.metadata.ownerReferences?.some((o) => o.uid === current.metadata.uid))
          : [];
        const failure = current?.status.conditions?.find((c) => c.type === 'ReplicaFailure');
        out[name] = { rs: owned.length, pods: podsOf.length, replicas: d.spec.replicas, want, failure };
        if (failure) problems.push(`${name}: ${failure.message}`);
        // Until the controller has seen the latest spec, its revision (and so `current`) is the old one.
        else if ((d.status?.observedGeneration ?? 0) < d.metadata.generation)
          problems.push(`${name}: generation ${d.metadata.generation} not observed yet`);
        else if (!current) problems.push(`${name}: no ReplicaSet for revision`);
        else if (d.spec.replicas !== want)
          problems.push(`${name}: replicas ${d.spec.replicas}, want ${want}`);
        // Mid-rollout (no kubelet, so no Pod ever gets Ready) the new ReplicaSet holds the surge Pods.
        else if (rolling ? podsOf.length < 1 : podsOf.length !== want)
          problems.push(`${name}: ${podsOf.length}/${want} pods`);
      }
      return { ok: deps.length > 0 && problems.length === 0, deps: out, problems, count: deps.length };
    });
    return last;
  }
}

module.exports = { Kube };
