"""Judge alignment: where the LLM evaluator and people disagree, improving it, proving it.

The statistics are plain modules over arrays (``consensus``, ``confusion``, ``calibration``,
``split``, ``paired``, ``held_out``, ``replacement``); ``data`` reads a campaign into them,
``versions`` records each evaluator run as a version, ``triage`` and ``adjudication`` make the
queue of disagreements, ``comparison`` lays the versions side by side, and ``views`` shows it.
"""
