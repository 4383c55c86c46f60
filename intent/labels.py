"""The intent label sets: SMP2018 ECDT Task 1's 31 classes are the default of every track."""

from __future__ import annotations

# Chit-chat plus the 30 task domains, in the order the task's description lists them.
SMP_LABELS: tuple[str, ...] = (
    "website",
    "tvchannel",
    "lottery",
    "chat",
    "match",
    "datetime",
    "weather",
    "bus",
    "novel",
    "video",
    "riddle",
    "calc",
    "telephone",
    "health",
    "contacts",
    "epg",
    "app",
    "music",
    "cookbook",
    "stock",
    "map",
    "message",
    "poetry",
    "cinemas",
    "news",
    "flight",
    "translation",
    "train",
    "schedule",
    "radio",
    "email",
)
