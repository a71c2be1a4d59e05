"""Stands in for Grafana where its image cannot be pulled: not Grafana, a check of what the compose file gives it.

At start it reads the provisioning files as Grafana finds them: every *.yaml/*.yml in <provisioning>/datasources and
<provisioning>/dashboards, and every *.json under each dashboard provider's options.path. It exits 1, naming each
problem, when a file does not parse or lacks what Grafana needs (a data source's name and type, one default at most,
unique names and uids; a provider's path that exists; a dashboard's title and unique uid), and when a panel, query,
annotation or template variable names a data source that is not provisioned: a uid or name that no provisioned data
source has, a type that does not match it, or a ${var} that is no data source variable of the dashboard or whose
plugin type no provisioned data source has. Otherwise it serves, on GF_SERVER_HTTP_PORT (3000):

  /api/health                   {"database": "ok", "version": ...}, no login (as Grafana's)
  /api/datasources              the provisioned data sources      basic auth, GF_SECURITY_ADMIN_USER/_PASSWORD
  /api/search                   the provisioned dashboards        (admin/admin by default)
  /api/dashboards/uid/<uid>     one of them
"""

import base64
import glob
import json
import os
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import yaml

VERSION = "11.1.0 (stand-in)"
BUILT_IN = {"grafana", "-- Grafana --", "-- Mixed --", "-- Dashboard --", "dashboard"}
VARIABLE = re.compile(r"^\$\{?(\w+)(?::\w+)?\}?$|^\[\[(\w+)\]\]$")


def config_files(folder, problems):
    """(path, parsed) for every *.yaml and *.yml in the folder; a file that does not parse is a problem."""
    for path in sorted(glob.glob(os.path.join(folder, "*.yaml")) + glob.glob(os.path.join(folder, "*.yml"))):
        try:
            yield path, yaml.safe_load(open(path)) or {}
        except (OSError, yaml.YAMLError) as e:
            problems.append(f"{path}: {e}")


def load_datasources(folder, problems):
    sources = []
    for path, spec in config_files(folder, problems):
        for i, source in enumerate(spec.get("datasources") or []):
            where = f"{path}: datasources[{i}]"
            if not isinstance(source, dict) or not source.get("name") or not source.get("type"):
                problems.append(f"{where}: a data source needs a name and a type")
                continue
            if source["type"] == "prometheus" and not source.get("url"):
                problems.append(f"{where}: a prometheus data source needs a url")
            sources.append(source)
    for key in ("name", "uid"):
        values = [s[key] for s in sources if s.get(key)]
        for value in {v for v in values if values.count(v) > 1}:
            problems.append(f"data sources: {key} {value!r} provisioned twice")
    if sum(1 for s in sources if s.get("isDefault")) > 1:
        problems.append("data sources: more than one isDefault")
    return sources


def load_dashboards(folder, problems):
    dashboards = []
    for path, spec in config_files(folder, problems):
        for i, provider in enumerate(spec.get("providers") or []):
            where = f"{path}: providers[{i}]"
            if provider.get("type", "file") != "file":
                problems.append(f"{where}: type {provider.get('type')!r}; only file providers are known here")
                continue
            folder_path = (provider.get("options") or {}).get("path")
            if not folder_path or not os.path.isdir(folder_path):
                problems.append(f"{where}: options.path {folder_path!r} is not a directory in the container")
                continue
            files = sorted(glob.glob(os.path.join(folder_path, "**", "*.json"), recursive=True))
            if not files:
                problems.append(f"{where}: no *.json under {folder_path}")
            for file in files:
                try:
                    dashboard = json.load(open(file))
                except (OSError, ValueError) as e:
                    problems.append(f"{file}: {e}")
                    continue
                if not isinstance(dashboard, dict) or not dashboard.get("title"):
                    problems.append(f"{file}: a dashboard needs a title")
                    continue
                dashboards.append((file, dashboard))
    uids = [d.get("uid") for _, d in dashboards if d.get("uid")]
    for uid in {u for u in uids if uids.count(u) > 1}:
        problems.append(f"dashboards: uid {uid!r} twice")
    return dashboards


def references(dashboard):
    """(where, datasource reference) for each panel, nested panel, query, annotation and template variable."""

    def panel_refs(panels, prefix):
        for panel in panels or []:
            where = f"{prefix} panel {panel.get('id')} {panel.get('title')!r}"
            if "datasource" in panel:
                yield where, panel["datasource"]
            for target in panel.get("targets") or []:
                if "datasource" in target:
                    yield f"{where} query {target.get('refId')}", target["datasource"]
            yield from panel_refs(panel.get("panels"), where + " >")

    yield from panel_refs(dashboard.get("panels"), "")
    for annotation in (dashboard.get("annotations") or {}).get("list") or []:
        if "datasource" in annotation:
            yield f"annotation {annotation.get('name')!r}", annotation["datasource"]
    for variable in (dashboard.get("templating") or {}).get("list") or []:
        if variable.get("type") != "datasource" and "datasource" in variable:
            yield f"variable {variable.get('name')!r}", variable["datasource"]


def check_references(file, dashboard, sources, problems):
    variables = {v.get("name"): v for v in (dashboard.get("templating") or {}).get("list") or []}
    types = {s["type"] for s in sources}
    for where, ref in references(dashboard):
        if ref is None:
            if not sources:
                problems.append(f"{file}:{where}: the default data source, and none is provisioned")
            continue
        uid, kind = (ref.get("uid"), ref.get("type")) if isinstance(ref, dict) else (ref, None)
        if uid is None or uid in BUILT_IN:
            continue
        match = VARIABLE.match(str(uid))
        if match:
            name = match.group(1) or match.group(2)
            variable = variables.get(name)
            if not variable or variable.get("type") != "datasource":
                problems.append(f"{file}:{where}: ${{{name}}} is no data source variable of the dashboard")
            elif variable.get("query") not in types:
                problems.append(f"{file}:{where}: ${{{name}}} lists {variable.get('query')!r} data sources;"
                                f" provisioned: {sorted(types)}")
            elif kind and kind != variable.get("query"):
                problems.append(f"{file}:{where}: type {kind!r}, but ${{{name}}} lists {variable.get('query')!r}")
            continue
        source = next((s for s in sources if uid in (s.get("uid"), s["name"])), None)
        if source is None:
            problems.append(f"{file}:{where}: data source {uid!r} is not provisioned"
                            f" (uids {[s.get('uid') for s in sources]}, names {[s['name'] for s in sources]})")
        elif kind and kind != source["type"]:
            problems.append(f"{file}:{where}: type {kind!r}, but {uid!r} is {source['type']!r}")


def main():
    provisioning = os.environ.get("GF_PATHS_PROVISIONING", "/etc/grafana/provisioning")
    problems = []
    sources = load_datasources(os.path.join(provisioning, "datasources"), problems)
    dashboards = load_dashboards(os.path.join(provisioning, "dashboards"), problems)
    for file, dashboard in dashboards:
        check_references(file, dashboard, sources, problems)
    if problems:
        for problem in problems:
            print(f"provisioning error: {problem}", file=sys.stderr, flush=True)
        sys.exit(1)
    for source in sources:
        print(f"provisioned data source {source['name']!r} uid={source.get('uid')!r} type={source['type']!r}"
              f" url={source.get('url')!r}", flush=True)
    for file, dashboard in dashboards:
        refs = sum(1 for _ in references(dashboard))
        print(f"provisioned dashboard {dashboard['title']!r} uid={dashboard.get('uid')!r} from {file}:"
              f" {refs} data source references, all provisioned", flush=True)

    login = "Basic " + base64.b64encode(
        (os.environ.get("GF_SECURITY_ADMIN_USER", "admin") + ":"
         + os.environ.get("GF_SECURITY_ADMIN_PASSWORD", "admin")).encode()).decode()
    by_uid = {d.get("uid"): d for _, d in dashboards}

    class Handler(BaseHTTPRequestHandler):
        def reply(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            path = self.path.split("?")[0]
            if path == "/api/health":
                return self.reply(200, {"database": "ok", "version": VERSION})
            if self.headers.get("Authorization") != login:
                return self.reply(401, {"message": "Unauthorized"})
            if path == "/api/datasources":
                return self.reply(200, sources)
            if path == "/api/search":
                return self.reply(200, [{"uid": d.get("uid"), "title": d["title"], "type": "dash-db"}
                                        for _, d in dashboards])
            if path.startswith("/api/dashboards/uid/") and path[len("/api/dashboards/uid/"):] in by_uid:
                return self.reply(200, {"dashboard": by_uid[path[len("/api/dashboards/uid/"):]]})
            return self.reply(404, {"message": "Not found"})

        def log_message(self, *args):
            pass

    port = int(os.environ.get("GF_SERVER_HTTP_PORT", "3000"))
    print(f"stand-in for Grafana {VERSION} listening on :{port}", flush=True)
    ThreadingHTTPServer(("", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
