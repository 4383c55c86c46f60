"""The human–LLM agreement report of a campaign: computed, cached, shown and exported."""
