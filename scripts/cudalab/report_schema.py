"""The labs' --json reports against docs/schema/lab-report.schema.json.

  scripts/report_schema.py FILE.json ...          validate recorded reports
  scripts/report_schema.py --run [--launcher CMD] -- LAB ARGS...
                                                  run a lab with --json added, validate what it
                                                  printed (the GPU smoke runs do this)

With --run the lab's own exit status is passed on when it is not 0 (77: no GPU, skipped; 1: a
wrong result), and a report that does not validate exits 1 with one line per problem. Exit
codes: 0 valid, 1 invalid (or the lab failed), 2 usage or unreadable input, 77 skipped.

The validator is the jsonschema package where it is installed (Debian: python3-jsonschema);
without it, the small validator below, which knows exactly the keywords the schema uses and
refuses a schema with any other, so it never passes what it does not understand. A CPU test
(scripts.report_schema) checks that both refuse the same broken reports.
"""
import json
import os
import re
import shlex
import subprocess
import sys

from . import script_cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = os.path.join(ROOT, "docs", "schema", "lab-report.schema.json")
MAX_REPORT_BYTES = 16 << 20  # a report is a few kB; anything past this is not one

KNOWN = {"$schema", "title", "description", "type", "required", "allOf", "anyOf", "not", "properties",
         "patternProperties", "additionalProperties", "propertyNames", "pattern", "const", "enum",
         "minimum", "exclusiveMinimum", "items", "$ref", "if", "then", "$defs"}
TYPES = {"object": dict, "array": list, "string": str, "null": type(None)}


def load_schema(path=SCHEMA):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _is_type(value, name):
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "boolean":
        return isinstance(value, bool)
    return isinstance(value, TYPES[name])


class MiniValidator:
    """Draft 2020-12, restricted to KNOWN keywords (a schema with another one is refused)."""

    def __init__(self, schema):
        self.root = schema
        self._check_keywords(schema)

    def _check_keywords(self, s):
        if isinstance(s, dict):
            unknown = set(s) - KNOWN
            if unknown:
                raise ValueError(f"the schema uses keywords this validator does not know: {sorted(unknown)}")
            for k, v in s.items():
                if k in ("properties", "patternProperties", "$defs"):
                    for sub in v.values():
                        self._check_keywords(sub)
                elif k in ("allOf", "anyOf"):
                    for sub in v:
                        self._check_keywords(sub)
                elif k in ("not", "items", "additionalProperties", "propertyNames", "if", "then"):
                    self._check_keywords(v)

    def _ref(self, ref):
        if not ref.startswith("#/"):
            raise ValueError(f"only local $ref: {ref}")
        node = self.root
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    def errors(self, value, schema=None, path="$"):
        schema = self.root if schema is None else schema
        out = []
        if schema is True or schema == {}:
            return out
        if "$ref" in schema:
            out += self.errors(value, self._ref(schema["$ref"]), path)
        if "type" in schema:
            names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(_is_type(value, n) for n in names):
                return out + [f"{path}: {json.dumps(value)[:60]} is not of type {names}"]
        if "const" in schema and not (value == schema["const"] and type(value) is type(schema["const"])):
            out.append(f"{path}: must be {json.dumps(schema['const'])}")
        if "enum" in schema and not any(value == e and type(value) is type(e) for e in schema["enum"]):
            out.append(f"{path}: {json.dumps(value)[:60]} is not one of {schema['enum']}")
        if _is_type(value, "number"):
            if "minimum" in schema and value < schema["minimum"]:
                out.append(f"{path}: {value} is below {schema['minimum']}")
            if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
                out.append(f"{path}: {value} is not above {schema['exclusiveMinimum']}")
        if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{path}: {value!r} does not match {schema['pattern']}")
        for sub in schema.get("allOf", []):
            out += self.errors(value, sub, path)
        if "anyOf" in schema and not any(not self.errors(value, sub, path) for sub in schema["anyOf"]):
            out.append(f"{path}: {json.dumps(value)[:60]} matches none of the allowed forms")
        if "not" in schema and not self.errors(value, schema["not"], path):
            out.append(f"{path}: matches a form that is not allowed")
        if "if" in schema and not self.errors(value, schema["if"], path) and "then" in schema:
            out += self.errors(value, schema["then"], path)
        if isinstance(value, dict):
            for key in schema.get("required", []):
                if key not in value:
                    out.append(f"{path}: {key} is missing")
            props, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
            for key, v in value.items():
                sub_path = f"{path}.{key}"
                if "propertyNames" in schema:
                    out += self.errors(key, schema["propertyNames"], f"{path} key {key!r}")
                matched = key in props
                if key in props:
                    out += self.errors(v, props[key], sub_path)
                for pattern, sub in patterns.items():
                    if re.search(pattern, key):
                        matched = True
                        out += self.errors(v, sub, sub_path)
                if not matched and "additionalProperties" in schema:
                    out += self.errors(v, schema["additionalProperties"], sub_path)
        if isinstance(value, list) and "items" in schema:
            for i, v in enumerate(value):
                out += self.errors(v, schema["items"], f"{path}[{i}]")
        return out


def problems(report, schema=None, prefer_package=True):
    """The schema's complaints about `report` (a parsed document), as lines; [] when valid."""
    schema = load_schema() if schema is None else schema
    if prefer_package:
        try:
            import jsonschema  # noqa: F401
            from jsonschema import Draft202012Validator
        except ImportError:
            pass
        else:
            v = Draft202012Validator(schema)
            return sorted(f"$.{'.'.join(str(p) for p in e.absolute_path)}: {e.message}"[:300] for e in v.iter_errors(report))
    return MiniValidator(schema).errors(report)


def validator_name():
    try:
        import jsonschema  # noqa: F401
        return "jsonschema"
    except ImportError:
        return "the built-in subset validator"


def parse(text, what):
    if len(text) > MAX_REPORT_BYTES:
        raise ValueError(f"{what}: more than {MAX_REPORT_BYTES} bytes: not a report")
    try:
        return json.loads(text)
    except ValueError as e:
        raise ValueError(f"{what}: not JSON ({e})") from None


def timed_rows(report):
    """{"<table>/<variant>": row} for every timed row of a lab's --json report: a table is a
    list of rows, each a dict of its cells; a timed row names its variant and has median_ms."""
    found = {}
    for name, rows in report.items():
        for row in rows if isinstance(rows, list) else []:
            if isinstance(row, dict) and "variant" in row and "median_ms" in row:
                found[f"{name}/{row['variant']}"] = row
    return found


def why(stdout, most=20):
    """What a lab that exited nonzero said in its --json report (its stdout, where the notes
    and the verdicts go): its notes, then each table row whose verdict is not "yes" (suspect,
    NO). Nothing when the report cannot be read."""
    try:
        report = json.loads(stdout[:MAX_REPORT_BYTES].decode("utf-8", "replace"))
    except ValueError:
        return []
    if not isinstance(report, dict):
        return []
    lines = [str(n).strip() for n in report.get("notes", []) if str(n).strip()]
    for name, rows in report.items():  # a table is a list of rows, each a dict of its cells
        for row in rows if isinstance(rows, list) else []:
            if isinstance(row, dict) and ("correct" in row or "suspect" in row):
                if row.get("correct") is False or row.get("suspect") is True:
                    label = row.get("variant", row.get("name", "?"))
                    lines.append(f"{name}: {label}: " + ("wrong" if row.get("correct") is False else "suspect"))
    return lines[:most]


def run_and_check(launcher, command):
    cmd = (shlex.split(launcher) if launcher else []) + command + ["--json"]
    try:
        run = subprocess.run(cmd, stdout=subprocess.PIPE, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"report_schema: could not run {command[0]}: {e}", file=sys.stderr)
        return 1
    if run.returncode != 0:
        print(f"report_schema: {os.path.basename(command[0])} exited {run.returncode}", file=sys.stderr)
        for line in why(run.stdout):
            print(f"report_schema:   {line}", file=sys.stderr)
        return run.returncode
    try:
        report = parse(run.stdout[:MAX_REPORT_BYTES + 1].decode("utf-8", "replace"), os.path.basename(command[0]))
    except ValueError as e:
        print(f"report_schema: {e}", file=sys.stderr)
        return 1
    found = problems(report)
    for line in found[:20]:
        print(f"report_schema: {line}", file=sys.stderr)
    if not found:
        print(f"report_schema: {os.path.basename(command[0])}: its report validates ({validator_name()})")
    return 1 if found else 0


def main():
    argv = sys.argv[1:]
    if "--run" in argv:
        if "--" not in argv:
            script_cli.fail("report_schema", 2, "--run needs -- LAB ARGS...")
        head, command = argv[:argv.index("--")], argv[argv.index("--") + 1:]
        launcher = ""
        for a in head:
            if a.startswith("--launcher="):
                launcher = a.split("=", 1)[1]
            elif a != "--run":
                script_cli.fail("report_schema", 2, f"unknown option {a}")
        if not command:
            script_cli.fail("report_schema", 2, "--run needs a command after --")
        return run_and_check(launcher, command)
    ap = script_cli.Parser(prog="report_schema", description="Validate labs' --json reports against the schema.")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    bad = 0
    for path in args.files:
        try:
            with open(path, encoding="utf-8") as f:
                report = parse(f.read(MAX_REPORT_BYTES + 1), path)
        except (OSError, ValueError) as e:
            script_cli.fail("report_schema", 2, str(e))
        found = problems(report)
        for line in found[:20]:
            print(f"{path}: {line}")
        bad += bool(found)
    print(f"report_schema: {len(args.files) - bad} of {len(args.files)} reports valid ({validator_name()})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
