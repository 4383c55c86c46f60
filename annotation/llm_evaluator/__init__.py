"""The LLM evaluator: an OpenAI-compatible model scores a campaign's transcripts on its rubric.

``prompt`` asks in the transcript's language, ``verdict`` reads the answer (a rationale, then a
score, per dimension), ``job`` is the resumable, cached scoring job that writes ``LLMScore``
rows (``ranges`` keeps what it has done), ``forms``, ``views`` and ``urls`` its pages.
"""
