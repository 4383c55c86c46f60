"""The measures' names in the reader's language."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

MEASURE_LABELS = {
    "entropy_cs_bits": _("entropy, Chao–Shen (bits)"),
    "entropy_bits": _("entropy (bits)"),
    "n_mentions": _("mentions"),
    "n_distinct": _("distinct items"),
    "pearson_r": _("Pearson r (rating, yes-rate)"),
    "yes_rate": _("yes-rate"),
    "n_items": pgettext_lazy("how many", "items"),
    "n_aspects": _("aspects"),
    "aspect_entropy_cs": _("aspect entropy, Chao–Shen (bits)"),
    "aspect_entropy": _("aspect entropy (bits)"),
    "sentiment_entropy_cs": _("sentiment entropy, Chao–Shen (bits)"),
    "sentiment_entropy": _("sentiment entropy (bits)"),
    "type_token_ratio": _("type–token ratio"),
    "embedding_diversity": _("embedding diversity"),
    "coherence": _("coherence"),
    "accept_rate_positive": _("positives accepted"),
    "reject_rate_negative": _("negatives rejected"),
    "share_positive": _("comparisons: positive chosen"),
    "share_neither": _("comparisons: neither"),
    "position_bias": _("comparisons: first shown chosen"),
}
