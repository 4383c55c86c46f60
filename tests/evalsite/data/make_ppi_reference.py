"""Writes ppi_reference.json: seeded arrays and what ``ppi_py`` 0.2.3 computes from them.

Run outside the project, in a scratch environment that holds the reference library:

    python3 -m venv /tmp/ppienv && /tmp/ppienv/bin/pip install ppi_python==0.2.3
    /tmp/ppienv/bin/python tests/evalsite/data/make_ppi_reference.py

The project does not depend on ``ppi_py``; its tests read the JSON this writes.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate

OUT = Path(__file__).with_name("ppi_reference.json")
EXAMPLE = Path(__file__).with_name("judge_estimate_example.csv")


def case(name: str, y: np.ndarray, f: np.ndarray, f_unlabeled: np.ndarray) -> dict[str, object]:
    estimate = ppi_mean_pointestimate(y, f, f_unlabeled)
    low, high = ppi_mean_ci(y, f, f_unlabeled, alpha=0.05)
    c_low, c_high = classical_mean_ci(y, alpha=0.05)
    lam1_low, lam1_high = ppi_mean_ci(y, f, f_unlabeled, alpha=0.05, lam=1.0)
    return {
        "name": name,
        "human": y.tolist(),
        "llm_labeled": f.tolist(),
        "llm_unlabeled": f_unlabeled.tolist(),
        "ppi_mean": float(np.ravel(estimate)[0]),
        "ppi_ci": [float(np.ravel(low)[0]), float(np.ravel(high)[0])],
        "classical_ci": [float(c_low), float(c_high)],
        "ppi_ci_lam1": [float(np.ravel(lam1_low)[0]), float(np.ravel(lam1_high)[0])],
    }


def main() -> None:
    rng = np.random.default_rng(20261202)
    cases = []
    # 1-5 ratings: an LLM that tracks people with noise and a +0.4 bias.
    truth = rng.normal(3.5, 0.8, 600)
    llm = np.clip(np.round(truth + 0.4 + rng.normal(0, 0.5, 600)), 1, 5)
    human = np.clip(np.round((truth + rng.normal(0, 0.3, 600)) * 3) / 3, 1, 5)
    cases.append(case("correlated_bias", human[:80], llm[:80], llm[80:]))
    # The LLM ignores the item: λ is clipped at 0 (or lands near it).
    noise = rng.integers(1, 6, 300).astype(float)
    human2 = np.clip(np.round(rng.normal(3, 1, 300)), 1, 5)
    cases.append(case("uncorrelated", human2[:50], noise[:50], noise[50:]))
    # The LLM anti-correlates with people: the raw λ is negative and clipped to 0.
    y3 = rng.normal(0, 1, 200)
    f3 = -y3 + rng.normal(0, 0.2, 200)
    cases.append(case("anti_correlated", y3[:40], f3[:40], f3[40:]))
    # The LLM is people's score shrunk by 4: the raw λ is near 4 and clipped to 1.
    y4 = rng.normal(0, 1, 400)
    f4 = y4 / 4 + rng.normal(0, 0.01, 400)
    cases.append(case("shrunk_llm", y4[:60], f4[:60], f4[60:]))
    # Task completion (0/1) with a lenient LLM: 85% sensitivity, 70% specificity.
    done = rng.random(500) < 0.6
    said = np.where(done, rng.random(500) < 0.85, rng.random(500) < 0.30).astype(float)
    cases.append(case("binary", done[:120].astype(float), said[:120], said[120:]))
    # Few rated items against many unrated.
    y6 = rng.normal(3, 1, 1000)
    f6 = 0.8 * y6 + 1 + rng.normal(0, 0.6, 1000)
    cases.append(case("few_labels", y6[:12], f6[:12], f6[12:]))
    # The worked example's file, read here independently of the command that reads it.
    by_group: dict[str, tuple[list[float], list[float], list[float]]] = {}
    with open(EXAMPLE, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            y, f, f_unlabeled = by_group.setdefault(row["group"], ([], [], []))
            if row["human"]:
                y.append(float(row["human"]))
                f.append(float(row["llm"]))
            else:
                f_unlabeled.append(float(row["llm"]))
    files = {
        group: {
            key: value
            for key, value in case(group, *map(np.array, found)).items()
            if key in ("ppi_mean", "ppi_ci", "classical_ci")
        }
        for group, found in by_group.items()
    }
    reference = {"ppi_py": "0.2.3", "alpha": 0.05, "cases": cases, "example_file": files}
    OUT.write_text(json.dumps(reference, indent=1) + "\n")


if __name__ == "__main__":
    main()
