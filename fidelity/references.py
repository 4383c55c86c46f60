"""What Yoon et al. (NAACL 2024) reported, drawn as reference lines on the report.

The figures are those of docs/fidelity.md ("What the paper reported"): they come from the
paper's datasets, so they show the scale of the differences rather than targets.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalsite.agreement.phrases import Phrase, gettext_noop

# Shown in the reader's language (evalsite.agreement.phrases.shown); English elsewhere.
PEOPLE = Phrase(gettext_noop("people"))


@dataclass(frozen=True)
class Reference:
    """One figure of the paper: who, which measure, the value, and where it comes from (the
    group "people" and the source are phrases, shown in the reader's language)."""

    group: str
    measure: str
    value: float
    source: str


REFERENCES: dict[str, tuple[Reference, ...]] = {
    "items_talk": (
        Reference(PEOPLE, "entropy_bits", 12.61, Phrase(gettext_noop("Table 2, IMDB"))),
        Reference(PEOPLE, "entropy_bits", 9.71, Phrase(gettext_noop("Table 2, ReDial"))),
        Reference("gpt-4, DI", "entropy_bits", 4.18, Phrase(gettext_noop("Table 2, ReDial"))),
        Reference("gpt-4, IH", "entropy_bits", 9.03, Phrase(gettext_noop("Table 2, ReDial"))),
    ),
    "bin_pref": (
        Reference("gpt-4, DI", "pearson_r", 0.29, Phrase(gettext_noop("Table 8, all frequencies"))),
        Reference(
            "gpt-4, DI+PP", "pearson_r", 0.44, Phrase(gettext_noop("Table 8, all frequencies"))
        ),
    ),
    "open_pref": (
        Reference(PEOPLE, "aspect_entropy", 5.85, Phrase(gettext_noop("Table 4"))),
        Reference("gpt-4, DI+PP", "aspect_entropy", 5.59, Phrase(gettext_noop("Table 4"))),
        Reference(PEOPLE, "sentiment_entropy", 1.19, Phrase(gettext_noop("Table 4"))),
    ),
    "rec_request": (
        Reference(PEOPLE, "type_token_ratio", 0.65, Phrase(gettext_noop("Table 6"))),
        Reference("gpt-4", "type_token_ratio", 0.61, Phrase(gettext_noop("Table 6"))),
        Reference(
            PEOPLE,
            "embedding_diversity",
            0.391,
            Phrase(gettext_noop("Table 6, sentence embeddings")),
        ),
    ),
    "feedback": (
        Reference("gpt-3.5", "coherence", 0.97, Phrase(gettext_noop("Figure 7"))),
        Reference("text-davinci-003", "coherence", 0.65, Phrase(gettext_noop("Figure 7"))),
        Reference("gpt-4", "share_positive", 0.91, Phrase(gettext_noop("Table 7, items only"))),
    ),
}

# Binary preference by frequency bucket (Table 3): Pearson r over frequent and infrequent items.
BUCKET_REFERENCES: dict[str, tuple[Reference, ...]] = {
    "frequent": (
        Reference("gpt-3.5, DI", "pearson_r", 0.18, Phrase(gettext_noop("Table 3, frequent"))),
        Reference("gpt-4, DI", "pearson_r", 0.24, Phrase(gettext_noop("Table 3, frequent"))),
        Reference("gpt-4, DI+PP", "pearson_r", 0.75, Phrase(gettext_noop("Table 3, frequent"))),
    ),
    "infrequent": (
        Reference("gpt-3.5, DI", "pearson_r", 0.12, Phrase(gettext_noop("Table 3, infrequent"))),
        Reference("gpt-4, DI", "pearson_r", 0.53, Phrase(gettext_noop("Table 3, infrequent"))),
        Reference("gpt-4, DI+PP", "pearson_r", 0.76, Phrase(gettext_noop("Table 3, infrequent"))),
    ),
}
