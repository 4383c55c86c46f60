"""Time the human–LLM agreement report at CONCEPT scale against bare point estimates.

6,720 transcripts × 8 dimensions, each scored 1–5 by three humans and one LLM (synthetic scores
from a seeded generator), with 1,000 bootstrap resamples on every statistic. The baseline is a
single pass of the raw krippendorff and scipy calls on the same arrays, in the same process.
Run from the repository root: ``python bench/agreement.py``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evalsite.agreement.engine import human_llm_agreement

TRANSCRIPTS = 6720
DIMENSIONS = (
    "fluency",
    "coherence",
    "informativeness",
    "recommendation",
    "engagement",
    "persuasiveness",
    "honesty",
    "satisfaction",
)
HUMANS = ("human1", "human2", "human3")
LLM = "llm"
SYSTEMS = ("kbrd", "barcor", "unicrs", "chatgpt")
RESAMPLES = 1000
SEED = 7


def synthetic_scores() -> pd.DataFrame:
    """Every rater sees a latent quality per transcript and dimension, plus their own noise."""
    generator = np.random.default_rng(SEED)
    items = np.array([f"t{number:05d}" for number in range(TRANSCRIPTS)])
    systems = np.array(SYSTEMS)[generator.integers(0, len(SYSTEMS), TRANSCRIPTS)]
    frames = []
    for dimension in DIMENSIONS:
        quality = generator.normal(3.0, 0.9, TRANSCRIPTS)
        for rater, noise in (*((human, 0.7) for human in HUMANS), (LLM, 0.9)):
            score = np.clip(np.rint(quality + generator.normal(0.0, noise, TRANSCRIPTS)), 1, 5)
            frames.append(
                pd.DataFrame(
                    {
                        "item": items,
                        "rater": rater,
                        "score": score,
                        "dimension": dimension,
                        "system": systems,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def point_estimates(frame: pd.DataFrame) -> None:
    """The package and scipy calls that the report wraps, once each, without resampling."""
    for _, rows in frame.groupby("dimension", sort=False):
        wide = rows.pivot(index="item", columns="rater", values="score")
        humans = wide[list(HUMANS)].to_numpy()
        llm = wide[LLM].to_numpy()
        mean = humans.mean(axis=1)
        domain = np.arange(1.0, 6.0)
        krippendorff.alpha(humans.T, value_domain=domain, level_of_measurement="ordinal")
        krippendorff.alpha(
            np.column_stack([humans, llm]).T, value_domain=domain, level_of_measurement="ordinal"
        )
        krippendorff.alpha(np.vstack([llm, mean]), level_of_measurement="interval")
        stats.pearsonr(mean, llm)
        stats.spearmanr(mean, llm)
        stats.kendalltau(mean, llm)
        distance = np.abs(humans - llm[:, None])
        float(np.abs(mean - llm).mean())
        float((distance == 0).mean())
        float((distance <= 1).mean())


def main() -> None:
    frame = synthetic_scores()
    print(f"scores: {len(frame):,} ({TRANSCRIPTS:,} transcripts × {len(DIMENSIONS)} dimensions)")

    started = time.perf_counter()
    point_estimates(frame)
    seconds_point = time.perf_counter() - started
    print(f"point estimates (package + scipy, one pass): {seconds_point:.2f} s")

    started = time.perf_counter()
    report = human_llm_agreement(
        frame, llm=LLM, level="ordinal", scale=(1, 5), resamples=RESAMPLES, seed=42
    )
    seconds_full = time.perf_counter() - started
    print(f"full report with {RESAMPLES:,} resamples per statistic: {seconds_full:.2f} s")

    started = time.perf_counter()
    human_llm_agreement(
        frame, llm=LLM, level="ordinal", scale=(1, 5), resamples=RESAMPLES, by=["system"]
    )
    seconds_by = time.perf_counter() - started
    print(f"full report plus a breakdown by system: {seconds_by:.2f} s")

    first = report["dimensions"][DIMENSIONS[0]]
    print(
        f"{DIMENSIONS[0]}: alpha humans {first['alpha']['humans']:.3f} "
        f"CI {first['alpha_ci']['humans']}, spearman {first['spearman']['rho']:.3f}"
    )
    print(
        json.dumps(
            {
                "items": TRANSCRIPTS,
                "seconds_full_report": round(seconds_full, 3),
                "seconds_point_estimates": round(seconds_point, 3),
                "bootstrap_overhead": round(seconds_full / seconds_point, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
