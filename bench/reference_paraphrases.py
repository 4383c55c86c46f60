"""Completion rate of the reference system on the paraphrased dialogues of real judges.

Replays ``tests/liveeval/paraphrases/dialogues.json`` against the in-memory booking world and
prints the completion rate overall, per language and per kind of paraphrase, then a final
JSON line. ``--show`` prints the transcripts of the dialogues that were not completed.
Usage: .venv/bin/python bench/reference_paraphrases.py
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--show", action="store_true", help="print the failed transcripts")
    args = parser.parse_args()
    os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    from tests.liveeval.paraphrase_dialogues import completion_rate, load, replay

    started = time.perf_counter()
    outcomes = [replay(dialogue) for dialogue in load()]
    seconds = time.perf_counter() - started
    groups: dict[str, list[bool]] = defaultdict(list)
    for outcome in outcomes:
        groups[f"lang {outcome.paraphrase.lang}"].append(outcome.completed)
        groups[outcome.paraphrase.what].append(outcome.completed)
    rate = completion_rate(outcomes)
    print(f"{len(outcomes)} dialogues in {seconds:.1f} s: completion rate {rate:.3f}")
    for name, done in sorted(groups.items()):
        print(f"  {name:<70} {sum(done):>3} / {len(done):<3} {sum(done) / len(done):.3f}")
    if args.show:
        for outcome in outcomes:
            if not outcome.completed:
                print(f"\n{outcome.paraphrase.key}: {outcome.paraphrase.goal}")
                for said, reply in outcome.transcript:
                    print(f"  > {said}\n  < {reply}")
    print(json.dumps({"dialogues": len(outcomes), "completion_rate": round(rate, 4)}))


if __name__ == "__main__":
    main()
