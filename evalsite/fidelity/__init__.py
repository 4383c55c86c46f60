"""Measures of whether simulated users behave like people (the protocol of Yoon et al., 2024)."""
