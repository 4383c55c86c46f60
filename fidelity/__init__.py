"""Simulator-fidelity studies: people and LLM simulators answer the same prompts, side by side."""
