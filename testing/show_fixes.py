"""Print every fix `why`, `check` and `attrs` give on a scenario, as the terminal shows it.

    python -m testing.show_fixes SCENARIO [SCENARIO...] [--lang ko] [--json]

For the people who write the catalog's fixes: read what an operator would paste (issue 22).
"""

from __future__ import annotations

import argparse
import json

from kubectl_rbln.app.attrs import AttrsRequest, attrs
from kubectl_rbln.app.check import CheckRequest, run_check
from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.render.why_table import fix_block
from testing.synthetic.scenarios import SCENARIOS


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="*", help="scenarios (default: every one)")
    parser.add_argument("--lang", default="en")
    parser.add_argument("--json", action="store_true", help="the -o json fix instead of the text")
    args = parser.parse_args()
    for name in args.names or sorted(SCENARIOS):
        scenario = SCENARIOS[name]
        snapshot = build_snapshot(scenario.build("v1"))
        namespace = scenario.pending_pod[0]
        reports = {
            "why": why(snapshot, WhyRequest((), namespace)),
            "check": run_check(snapshot, CheckRequest(namespace, "npu-rdma")),
            "attrs": attrs(snapshot, AttrsRequest(namespace, "npu-rdma")),
        }
        seen: set[str] = set()
        for command, report in reports.items():
            for finding in report.findings:
                document = finding.to_dict(args.lang)
                text = (
                    json.dumps(document["fix"], ensure_ascii=False, indent=1)
                    if args.json
                    else "\n".join(fix_block(document["remediation"], args.lang, wide=True))
                )
                if text in seen:
                    continue
                seen.add(text)
                print(
                    f"=== {name} / {command} / {finding.slug}"
                    + (f" ({finding.case})" if finding.case else "")
                )
                print(text)


if __name__ == "__main__":
    main()
