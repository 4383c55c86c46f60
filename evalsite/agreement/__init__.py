"""Agreement among human raters, and between human raters and an LLM evaluator.

Plain functions over plain data (numpy, pandas, scipy; no Django), shared by the report pages,
the ``agreement`` management command and the live-judging leaderboard.
"""
