// Validates Kubernetes manifests against the Kubernetes API's schemas,
// offline: those of the npm package kubernetes-models (JSON schemas from
// the Kubernetes OpenAPI document, compiled with Ajv), and for the
// Prometheus Operator's CRDs (PodMonitor, PrometheusRule) those of
// @kubernetes-models/prometheus-operator (from the CRDs' own schemas); YAML
// read with the npm package js-yaml.  tests/test-image.sh installs them
// (npm install, once, into a cache) and runs this.
//
// Usage: node tests/validate-k8s.mjs NODE_MODULES FILE...
// Prints "OK FILE: KIND NAME" or "INVALID FILE: KIND NAME: ERRORS" for each
// document; exits 1 if any is invalid or of a kind it does not know.

import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, ...files] = process.argv.slice(2);
const require = createRequire(path.join(modules, "x.js"));
const yaml = require("js-yaml");
let bad = 0;

// The packages of the models of CRDs, by API group.
const crds = {
    "monitoring.coreos.com": "@kubernetes-models/prometheus-operator",
};

// The model module of 'apiVersion' and 'kind': apps/v1 DaemonSet is
// kubernetes-models/apps/v1/DaemonSet.js, v1 Pod is v1/Pod.js,
// monitoring.coreos.com/v1 PodMonitor is
// @kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor.js.
async function model(apiVersion, kind) {
    const group = apiVersion.includes("/") ? apiVersion.split("/")[0] : "";
    const file = path.join(modules, crds[group] ?? "kubernetes-models",
                           apiVersion, `${kind}.js`);
    if (!/^[A-Za-z0-9.\/-]+$/.test(apiVersion + kind)
        || !fs.existsSync(file)) {
        return null;
    }
    return (await import(pathToFileURL(file).href))[kind];
}

for (const file of files) {
    const docs = yaml.loadAll(fs.readFileSync(file, "utf8"));
    for (const doc of docs) {
        if (!doc) {
            continue;
        }
        const what = `${file}: ${doc.kind} ${doc.metadata?.name}`;
        const Model = await model(String(doc.apiVersion), String(doc.kind));
        if (!Model) {
            console.log(`INVALID ${what}: unknown apiVersion/kind`);
            bad++;
            continue;
        }
        try {
            new Model(doc).validate();
            console.log(`OK ${what}`);
        } catch (e) {
            console.log(`INVALID ${what}: ${e.message}`);
            bad++;
        }
    }
}
process.exit(bad ? 1 : 0);
