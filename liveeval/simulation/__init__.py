"""Simulated judges: an LLM with a persona talks to live systems and rates them like people.

``personas`` describes CONCEPT's 12 emotions × 4 age groups, ``prompts`` what the simulator is
asked, ``answers`` how its turns and ratings are read, ``dialogue`` one dialogue held through
``conversation.exchange`` and then rated, ``job`` the resumable job over (task, system,
persona); ``forms``, ``views`` and ``urls`` its pages.
"""
