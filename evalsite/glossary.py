"""The meaning of every column key of the exports, for the glossary on a workbook's About sheet.

Keys are the column headers that `liveeval.results`, `annotation.report.rows`,
`annotation.alignment.sheets`, `fidelity.sheets` and `intent.exports` define; a key with a
suffix (``_low``, ``_high``, ``_ci_low``, ``_ci_high``, ``_n``) is described from its stem.
Columns that only one export has and that depend on its data (one per intent class, the CONCEPT
measures) are named by that sheet's own glossary.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

COLUMNS: dict[str, Promise] = {
    "ci_low": _("Lower bound of the value's 95% interval"),
    "ci_high": _("Upper bound of the value's 95% interval"),
    "deceptive_ratio_llm": _("Deceptive ratio, the mean over the LLM evaluators"),
    "nonexistent_item_reason": _("Why the non-existent item ratio is empty"),
    "adjudicator": _("The coordinator who decided the score"),
    "advantage": _("Whether the LLM did better than this person (the test's advantage)"),
    "alias": _("The system's code in this campaign, as judges know it (S and three digits)"),
    "alias_label": _("The system's alias as people read it, in the exporter's language"),
    "alpha": _("Krippendorff's α"),
    "alpha_humans": _("Krippendorff's α among the people"),
    "alpha_humans_pairwise": _("Mean Krippendorff's α over pairs of people"),
    "alpha_humans_plus_llm": _("Krippendorff's α with the LLM counted as one more rater"),
    "alpha_llm_humans": _("Krippendorff's α between the simulator and the people"),
    "alpha_llm_vs_human_mean": _("Krippendorff's α between the LLM and the people's mean score"),
    "alpha_llm_vs_humans": _("Mean Krippendorff's α between the LLM and each person"),
    "alt_test_advantage_probability": _("The alternative annotator test's advantage probability"),
    "alt_test_epsilon": _("The margin ε of the alternative annotator test"),
    "alt_test_note": _("Why the alternative annotator test could not run"),
    "alt_test_passed": _(
        "Whether the alternative annotator test passed (TRUE/FALSE; empty when it did not run)"
    ),
    "alt_test_winning_rate": _(
        "Share of people the LLM may replace, by the alternative annotator test"
    ),
    "annotator": _("The annotator's user name"),
    "at_count": _("The measure at an equal count of answers"),
    "at_count_mean": _("Mean of the measure over subsamples of the people's size"),
    "at_count_sd": _("Standard deviation of the measure over those subsamples"),
    "attribute": _("The persona attribute the row breaks down by"),
    "auto_completion_rate": _(
        "Share of tasks whose goal the bookings met, as checked automatically"
    ),
    "avg_turns": _("Mean number of turns per task"),
    "b_shown_left": _("For pairwise questions: TRUE when response B was shown on the left"),
    "best_on_calibration_split": _("Whether this version did best on the calibration split"),
    "calibrated_score": _("The score after calibration"),
    "code": _("A code as it appears in the data cells"),
    "collapsed": _("Whether the calibration map merged neighbouring scores"),
    "comment": _("The judge's free-text comment"),
    "completed": _('The judge\'s answer to "was the task completed?"'),
    "completion": _("Completion rate"),
    "completion_rate": _("Share of tasks completed, by the judges' ratings"),
    "created_at": _("When it was created (ISO 8601, site time)"),
    "dataset": _("The dataset the transcript comes from"),
    "decided_at": _("When the decision was made (ISO 8601, site time)"),
    "difference": _("The simulator's value minus the people's"),
    "dimension": _("The rubric dimension's key"),
    "end_reason": _("Why the session ended (a code)"),
    "ended_at": _("When the session ended (ISO 8601, site time)"),
    "equal_count": _("The number of answers the equal-count figure uses"),
    "evaluator": _("The LLM evaluator's name"),
    "exact_agreement": _("Share of paired scores that are equal"),
    "exact_agreement_chance_marginals": _(
        "Exact agreement expected by chance, from each side's shares of answers"
    ),
    "exact_agreement_chance_uniform": _(
        "Exact agreement expected by chance, with answers uniform over the scale"
    ),
    "exact_agreement_per_item": _("Exact agreement, averaged per item"),
    "f1": _("F1 score of the class"),
    "failed_checks": _("The checks of the stand-in rule that failed, by key"),
    "few_shot_items": _("The items given as examples in the prompt"),
    "fitted_items": _("Items the calibration map was fitted on"),
    "fluency": _("The judge's fluency rating"),
    "gain": _("Improvement in agreement over the first version"),
    "goal_met": _("Whether the bookings met the task's goal, as checked automatically"),
    "gold": _("The gold class of the row"),
    "group": _("The group of transcripts or the simulator the row describes"),
    "guidance": _("The judge's guidance rating"),
    "human": _("The person left out in this row of the test"),
    "human_consensus": _("The people's consensus score"),
    "human_mean": _("Mean of the people's scores"),
    "human_scores": _("Every person's score, comma-separated"),
    "imported_at": _("When the score was imported (ISO 8601, site time)"),
    "item": _("The item's id"),
    "items": _("Number of items"),
    "judge": _("The judge's user name"),
    "judge_vs_auto_agreement": _(
        'Share of sessions where the judge\'s "completed" agrees with the automatic check'
    ),
    "judges": _("Number of judges"),
    "kendall_p": _("p-value of Kendall's τ"),
    "kendall_tau": _("Kendall's τ between the LLM and the people's mean"),
    "kind": _("The kind of session (a code)"),
    "label": _("The row's label: dimension key, with the evaluator when there are several"),
    "lang": _('The dialogue language (a language code; "all" for every language)'),
    "latency_ms": _("The system's response time in milliseconds"),
    "level": _("The dimension's level of measurement"),
    "llm_majority_agreement": _("Share of items where the LLM picks what most people picked"),
    "llm_majority_agreement_p": _(
        "One-sided binomial p-value of that agreement against chance (0.5)"
    ),
    "llm_rationale": _("The LLM's rationale for its score"),
    "llm_score": _("The LLM's score"),
    "llm_share_a": _("Share of the LLM's picks that are A"),
    "mae": _("Mean absolute error between the LLM and the people"),
    "mapped_value": _("The value the calibration map fitted for this score"),
    "margin": _("The margin within which a difference counts as equal"),
    "max_avg_turns": _("The largest mean number of turns of any system, for scale"),
    "mean_fluency": _("Mean fluency rating"),
    "mean_guidance": _("Mean guidance rating"),
    "mean_satisfaction": _("Mean satisfaction rating"),
    "measure": _("The measure's key"),
    "model": _("The LLM model"),
    "n_alpha_humans": _("Items that α among the people rests on"),
    "n_alpha_humans_plus_llm": _("Items that α with the LLM as a rater rests on"),
    "n_answers": _("Number of answers"),
    "n_items": _("Number of items"),
    "n_judgements": _("Number of judgements"),
    "n_majority_items": _("Items where most people agreed"),
    "n_paired": _("Items with both an LLM and a human score"),
    "note": _("A note"),
    "note_label": _(
        "Why the calibration map is missing or near-constant, in the exporter's language"
    ),
    "notes": _("Notes on the row"),
    "notes_label": _("Notes on the row's figures, in the exporter's language"),
    "off_by_one_band": _("Whether the cell lies within one point of the diagonal"),
    "outcome": _("The outcome of the difference test (a code)"),
    "p_adjusted": _("The p-value adjusted for testing several people"),
    "p_value": _("The p-value"),
    "pearson_p": _("p-value of Pearson's r"),
    "pearson_r": _("Pearson's r between the LLM and the people's mean"),
    "people_sd": _("Standard deviation of the people's scores on the same items"),
    "persona_age_group": _("The simulated user's age group"),
    "persona_emotion": _("The simulated user's emotion"),
    "pooled_avg_turns": _("Mean number of turns over all sessions, not per task"),
    "pooled_completion_rate": _("Share of sessions completed, not per task"),
    "position": _("The message's position in the session, from 0"),
    "precision": _("Precision of the class"),
    "predicted": _("Number of utterances predicted as the class"),
    "prompt_template": _("The prompt template"),
    "prompt_version": _("The prompt's version"),
    "rank": _("Rank on the leaderboard"),
    "rated_at": _("When the rating was given (ISO 8601, site time)"),
    "rationale": _("The rater's rationale"),
    "reason": _("The reason for the decision"),
    "recall": _("Recall of the class"),
    "rejected": _("Whether the test rejected the null hypothesis for this person"),
    "relative_gap": _("The gap relative to the scale's range"),
    "resolved_score": _("The score the adjudicator settled on"),
    "role": _("Who wrote the message (a code)"),
    "satisfaction": _("The judge's satisfaction rating"),
    "scale_max": _("The scale's highest point"),
    "scale_min": _("The scale's lowest point"),
    "scale_points": _("Number of points on the scale"),
    "score": _("The score"),
    "scores": _("Which scores: raw or calibrated"),
    "scores_sd": _("Standard deviation of these scores"),
    "seed": _("The random seed"),
    "session": _("The session's id"),
    "sessions": _("Number of sessions"),
    "share_a": _("Share of judgements for A"),
    "share_b": _("Share of judgements for B"),
    "share_other": _("Share of judgements for neither"),
    "spearman_p": _("p-value of Spearman's ρ"),
    "spearman_rho": _("Spearman's ρ between the LLM and the people's mean"),
    "stands_in": _("Whether the LLM can stand in for the people, by the one verdict rule"),
    "stands_in_label": _(
        "Why the LLM can or cannot stand in for the people (or why there is no verdict), in the "
        "exporter's language"
    ),
    "started_at": _("When the session started (ISO 8601, site time)"),
    "status": _("The status (a code)"),
    "subsampled": _("Whether the figure comes from subsamples"),
    "subset": _("Which answers: all, a bucket, or the paper's figures"),
    "support": _("Number of gold utterances of the class"),
    "survives_bh": _(
        "Whether the row's Pearson r survives a Benjamini–Hochberg correction at 5% across its "
        "table's rows (empty without a p-value)"
    ),
    "system": _("The system's name"),
    "task": _("The task's key"),
    "tasks": _("Number of tasks"),
    "temperature": _("The sampling temperature"),
    "text": _("The text"),
    "time_on_task_ms": _("Time spent on the item in milliseconds"),
    "turns": _("Number of turns"),
    "unanswered": _("Utterances with no prediction"),
    "updated_at": _("When the answer was last saved (ISO 8601, site time)"),
    "value": _("The value"),
    "verdict_label": _("The verdict in words, in the exporter's language"),
    "version": _("The version's name"),
    "within_one": _("Share of paired scores at most one point apart"),
    "within_one_chance_marginals": _(
        "Within-one agreement expected by chance, from each side's shares of answers"
    ),
    "within_one_chance_uniform": _(
        "Within-one agreement expected by chance, with answers uniform over the scale"
    ),
}

_SUFFIXES: tuple[tuple[str, Promise], ...] = (
    ("_ci_low", _("Lower bound of the 95%% interval of: %(stem)s")),
    ("_ci_high", _("Upper bound of the 95%% interval of: %(stem)s")),
    ("_low", _("Lower bound of the 95%% interval of: %(stem)s")),
    ("_high", _("Upper bound of the 95%% interval of: %(stem)s")),
    ("_n", _("Number of items behind: %(stem)s")),
)


def meaning(key: str) -> str:
    """What the column ``key`` holds, in the active language; "" for a key no export defines."""
    if key in COLUMNS:
        return str(COLUMNS[key])
    for suffix, template in _SUFFIXES:
        stem = key.removesuffix(suffix)
        if stem != key and stem in COLUMNS:
            return str(template) % {"stem": COLUMNS[stem]}
    return ""
