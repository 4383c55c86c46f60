"""Sending a live campaign's ended dialogues to annotation: ``transcripts`` turns them into
transcripts; ``forms``, ``views`` and ``urls`` are the page that sends them.
"""
