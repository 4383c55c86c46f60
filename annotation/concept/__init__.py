"""The CONCEPT scorecard: its measures, item mentions, catalogs, sheet and pages."""
