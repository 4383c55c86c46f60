"""Transcript and LLM-score imports: read, validate everything, then write in one transaction.

Every reader streams its input (one line, one CSV row or one dialogue file at a time) and
turns it into the transcript shape of ``docs/import-formats.md``. Each row is validated
and spooled, already in database shape, to a temporary file; only when the whole input is
valid does the writer open one transaction and upsert the spooled rows in batches, keyed by
(campaign, external id). So memory stays bounded by one batch, the database's write lock is
held only while writing, and one bad row means nothing is written.

Problems name the file, the line (or row) and the field, e.g.
``transcripts.jsonl line 17: turns[3].role must be 'user' or 'system'``.

One module per part: ``problems`` (what went wrong, and the one collector), ``fields`` (checks
of single values), ``shape`` (the transcript shape and its field list), ``jsonl``,
``csv_rows``, ``concept4crs`` and ``rows`` (the readers), ``formats`` (choosing a reader),
``llm_scores`` (LLM score files), ``writer`` (the one place with raw SQL), ``progress`` and
``result``.
"""
